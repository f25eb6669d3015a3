/// The response window (SPEC sections 5 and 8): a delivery is remembered for `responseWindow` of
/// event time after its record's `fireDate`; a response later than that is refused as too late,
/// and the ledger forgets the delivery (with its rescheduled ids and handled clicks) in short
/// steps as the newest event time moves on.
extension DeliveryLedger {
    /// Whole seconds since 1970, rounded up (so the window is never cut short), within `UInt32`.
    static func seconds(_ milliseconds: Int64) -> UInt32 {
        if milliseconds <= 0 { return 0 }
        return UInt32(clamping: (milliseconds + 999) / 1000)
    }

    /// Forgets deliveries whose window ended at or before event time `cutoff` (ms), looking at no
    /// more than `limit` entries from where the last call stopped. Returns how many it forgot.
    /// Their saved lines are noted as removed (`takeChanges`).
    public mutating func forget(windowEndedBy cutoff: Int64, limit: Int) -> Int {
        if cutoff >= rotateForgottenAt {
            // Tombstones live between one and two windows: enough to tell a late response from
            // an unknown id, and bounded by the deliveries of two windows.
            if rotateForgottenAt != Int64.min || !forgotten.isEmpty {
                if savesTombstones && recordsChanges {
                    forgottenBefore.forEach { key, _ in changed.removed.append("4:" + Self.hex(key)) }
                }
                forgottenBefore = forgotten
                forgotten = GrowingIndex()
            }
            let (next, overflow) = cutoff.addingReportingOverflow(responseWindow)
            rotateForgottenAt = overflow ? Int64.max : next
        }
        if earliestFired == .max || windowEnd(earliestFired) > cutoff { return 0 }
        catchUp()
        var i = sweep < entries.count ? sweep : 0
        if i == 0 { passEarliest = .max }
        var seen = 0, dropped = 0
        while i < entries.count && seen < limit {
            seen += 1
            if windowEnd(entries[i].fired) <= cutoff {
                remove(Int32(i), at: cutoff)
                dropped += 1
            } else {
                passEarliest = min(passEarliest, entries[i].fired)
                i += 1
            }
        }
        if i >= entries.count {
            // A whole pass: every entry kept (and every delivery since) fired at or after this.
            earliestFired = passEarliest
            sweep = 0
        } else {
            sweep = i
        }
        return dropped
    }

    /// Event time (ms) at which responses to a record fired at `fired` (seconds) stop being taken.
    func windowEnd(_ fired: UInt32) -> Int64 {
        let (end, overflow) = (Int64(fired) * 1000).addingReportingOverflow(responseWindow)
        return overflow ? Int64.max : end
    }

    /// Removes entry `i`: the last entry takes its place (and its index, aliases and changes
    /// follow it there).
    /// `at`: the event time it is forgotten at, for its tombstone.
    private mutating func remove(_ i: Int32, at: Int64 = 0) {
        let gone = entries[Int(i)]
        let tombstones = savesTombstones && recordsChanges
        forgotten[gone.key] = gone.fired
        index[gone.key] = nil
        if recordsChanges { changed.removed.append("0:" + Self.hex(gone.key)) }
        if tombstones { changed.tombstones.append((gone.key, gone.fired, at)) }
        if let aliases = aliasesOf.removeValue(forKey: gone.key) {
            for alias in aliases {
                index[alias] = nil
                forgotten[alias] = gone.fired
                if recordsChanges { changed.removed.append("1:" + Self.hex(alias)) }
                if tombstones { changed.tombstones.append((alias, gone.fired, at)) }
            }
        }
        if let clicks = handledOf.removeValue(forKey: gone.key) {
            for click in clicks {
                handled.remove(click)
                if recordsChanges { changed.removed.append("2:" + Self.hex(click)) }
            }
        }
        extraClicks[i] = nil
        if recordsChanges { changed.entries.remove(i) }
        let last = Int32(entries.count - 1)
        if i != last {
            let moved = entries[Int(last)]
            entries[Int(i)] = moved
            index[moved.key] = i
            for alias in aliasesOf[moved.key] ?? [] { index[alias] = i }
            if let extra = extraClicks.removeValue(forKey: last) { extraClicks[i] = extra }
            if recordsChanges && changed.entries.remove(last) != nil { changed.entries.insert(i) }
        }
        entries.removeLast()
    }

    /// A tombstone read from a store: the id was forgotten (by this process or another), and
    /// its delivery, if held here, goes too. Kept as a tombstone of this ledger from now on.
    mutating func forgetSaved(_ key: UInt64, fired: UInt32) {
        catchUp()
        if let entry = index[key] { remove(entry) }
        forgotten[key] = fired
    }

    /// The `fired` of a delivery forgotten because its window passed, nil when the key is not one.
    func forgottenDelivery(_ key: UInt64) -> UInt32? {
        forgotten[key] ?? forgottenBefore[key]
    }
}
