package import BeaconRules

/// Retention in the state file (SPEC section 5): answers and outbox entries by the wall clock
/// they were stamped with, suppression state by a sweep over `firing` in key order, a few hundred
/// rows per commit; the pages freed go back to the file system a few at a time (incremental
/// vacuum), so the file stops growing under a steady stream instead of keeping every event.
extension SQLiteStateStore {
    package func setClock(_ now: Timestamp) { clock = now.milliseconds }

    /// Answers and outbox entries from the oldest on, while they were given before `time`, at
    /// most `limit` of each: the first one given later stops it (as the in-memory log does). One
    /// row read when nothing is old enough, which is most of the time.
    package func forgetAnswers(before time: Timestamp, limit: Int) throws(StoreError) -> Int {
        if failure != nil { return 0 }
        if journal.mode == .journaling {
            // Most of the time nothing is due, and the transaction stays journaled. Answers still in
            // the journal are newer than those in the table: looked at when none of those is due.
            var answersDue = try lastBefore(time, oldestAnswers, limit: limit) != nil
            if !answersDue && !journal.answers.isEmpty {
                let due: (StateChange) -> Bool = {
                    if case .answer(_, _, _, _, let at) = $0 { at < time.milliseconds } else { false }
                }
                answersDue = journal.committed.contains { $0.changes.contains(where: due) } || journal.pending.contains(where: due)
            }
            let outboxDue = try lastBefore(time, oldestOutbox, limit: limit) != nil
            if !answersDue && !outboxDue { return 0 }
            try goDirect()
        }
        let answers = try deleteOldest(oldestAnswers, through: forgetAnswersThrough, before: time, limit: limit)
        if answers > 0 { try forgetUnnamedTails() }
        // Counted as `remember` counts: in the open transaction until it commits.
        if inTransaction { pendingAnswers -= answers } else { heldAnswers -= answers }
        return answers + (try deleteOldest(oldestOutbox, through: forgetOutboxThrough, before: time, limit: limit))
    }

    /// Reads the oldest rows with `oldest` (number, time) until one given at `time` or later, then
    /// deletes those before it with `through` (every row up to a number); how many it deleted.
    private func deleteOldest(_ oldest: SQLiteStatement, through: SQLiteStatement, before time: Timestamp, limit: Int) throws(StoreError) -> Int {
        guard let last = try lastBefore(time, oldest, limit: limit) else { return 0 }
        defer { through.reset() }
        through.bind(1, last)
        _ = try through.step()
        return db.changes
    }

    /// The number of the last row `oldest` reads before one given at `time` or later, if any.
    private func lastBefore(_ time: Timestamp, _ oldest: SQLiteStatement, limit: Int) throws(StoreError) -> Int64? {
        defer { oldest.reset() }
        oldest.bind(1, Int64(min(limit, Int(Int32.max))))
        var last: Int64?
        while try oldest.step(), oldest.int64(1) < time.milliseconds { last = oldest.int64(0) }
        return last
    }

    /// The next `limit` rows of `firing` after the last step's, those of them expired deleted.
    package func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int {
        if failure != nil { return 0 }
        var expired: [(String, String)] = []
        var seen = 0
        do {
            defer { sweepFirings.reset() }
            sweepFirings.bind(1, firingSweep.0)
            sweepFirings.bind(2, firingSweep.1)
            sweepFirings.bind(3, Int64(min(limit, Int(Int32.max))))
            sweepFirings.bind(4, app)
            while try sweepFirings.step() {
                seen += 1
                let device = sweepFirings.text(0), campaign = sweepFirings.text(1)
                firingSweep = (device, campaign)
                // A time the journal holds is newer than the table's.
                var time = sweepFirings.int64(2)
                if journal.overlayValid, !journal.firings.isEmpty,
                   let newer = journal.firings[Journal.FiringKey(app: app, device: device, campaign: campaign)] {
                    time = newer.time
                }
                if expiry.isExpired(campaign: CampaignID(canonical: campaign), time: time) {
                    expired.append((device, campaign))
                }
            }
            // The end of the table: the next step starts again from its beginning.
            if seen < limit { firingSweep = ("", "") }
            if !expired.isEmpty { try goDirect() }
            for (device, campaign) in expired {
                defer { deleteFiring.reset() }
                deleteFiring.bind(1, device)
                deleteFiring.bind(2, campaign)
                deleteFiring.bind(3, app)
                _ = try deleteFiring.step()
            }
        } catch {
            note(error)
            return 0
        }
        return expired.count
    }

    /// Pages free in the file beyond a slack of an eighth of it (at least 256) go back, at most
    /// `reclaimStep` per call: the file keeps room for what comes next, and shrinks when a lot
    /// was forgotten.
    package func reclaimSpace() throws(StoreError) {
        if failure != nil { return }
        let free = try freePages.integer()
        let slack = max(256, try allPages.integer() / 8)
        if free > slack {
            try goDirect()
            try db.execute("PRAGMA incremental_vacuum(\(min(free - slack, Self.reclaimStep)))")
        }
    }

    /// Pages given back per commit at most: 512 pages of 4 KiB, 2 MiB.
    static let reclaimStep: Int64 = 512

    /// The database's pages (in use and free) in bytes, without the write-ahead log.
    package func pageBytes() throws(StoreError) -> Int64 {
        try db.integer("PRAGMA page_count") * db.integer("PRAGMA page_size")
    }
}
