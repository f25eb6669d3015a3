/// Retention (SPEC section 5), in the one place every driver goes through: `settle` forgets a
/// short step of what can go after each batch, so memory and the state file stay bounded under a
/// steady stream with no long pause.
extension LinePipeline {
    /// The wall clock now, for the answer retention: the driver sets it before it applies lines
    /// (answers are stamped with it) and `settle` forgets answers older than `retention.answers`
    /// by it. A pipeline never given one keeps its answers.
    public func setWallClock(_ now: Timestamp) {
        wallClock = now
        log.setClock(now)
    }

    /// Entries of each kind looked at per `settle` at least; and per line applied since the last.
    /// A line adds at most one answer and a few deliveries, so 4 a line keeps up with them; it
    /// adds at most a few suppression entries, and most update one in place, so the sweep over
    /// those (the costliest to look at in the state file: 4% of `serve --state`'s time at 256 a
    /// commit) looks at two a line: a line brings at most one new device, so the in-memory sweep
    /// (which counts devices) goes round the table faster than new devices grow it; at one a line
    /// a stream of new devices kept it just behind the newest, and old devices were never swept.
    public static var forgettingStep: Int { 32 }
    /// Entries `settle` looks at per line applied since the last, on top of `forgettingStep`:
    /// forgetting keeps pace with what the lines add.
    public static var forgettingPerLine: Int { 4 }
    /// Suppression entries (devices, in memory) `settle` looks at per line applied since the
    /// last, on top of `forgettingStep`: two, so the sweep laps a stream of new devices.
    public static var firingsForgottenPerLine: Int { 2 }
    /// A shared log's sweep of its saved ledger (deliveries no process holds in memory) runs at
    /// every this many `settle`s, looking at as many lines as those would have: one query less
    /// per transaction most of the time.
    public static var savedLedgerSweepEvery: Int { 8 }

    /// Forgets answers older than the answer retention (wall clock), suppression state that can no
    /// longer change a decision and deliveries past their response window (event time, less the
    /// lateness each allows), looking at no more than `limit` entries of each kind (by default a
    /// step sized to the lines applied since the last call). Inside the caller's transaction.
    /// `limit: .max` forgets all that can go at once (tests).
    public func forgetExpired(limit: Int? = nil) throws {
        let step = limit ?? max(Self.forgettingStep, appliedSinceSettle &* Self.forgettingPerLine)
        let firingStep = limit ?? max(Self.forgettingStep, appliedSinceSettle &* Self.firingsForgottenPerLine)
        appliedSinceSettle = 0
        if newestEventTime != Int64.min {
            let (cutoff, overflow) = newestEventTime.subtractingReportingOverflow(retention.lateness)
            if !overflow {
                firingExpiry.cutoff = cutoff
                _ = engine.engine.store.forgetFirings(firingExpiry, limit: firingStep)
            }
            let (responses, late) = newestEventTime.subtractingReportingOverflow(retention.responseLateness)
            if !late {
                engine.engine.ledger.responseWindow = retention.responseWindow
                _ = engine.engine.ledger.forget(windowEndedBy: responses, limit: step)
                forgetCalls &+= 1
                if log.isShared && forgetCalls % Self.savedLedgerSweepEvery == 0 {
                    _ = try log.forgetSavedDeliveries(windowEndedBy: responses, window: retention.responseWindow, limit: limit ?? step &* Self.savedLedgerSweepEvery)
                }
            }
        }
        if let wallClock {
            let (before, overflow) = wallClock.milliseconds.subtractingReportingOverflow(retention.answers)
            if !overflow { _ = try log.forgetAnswers(before: Timestamp(milliseconds: before), limit: step) }
        }
        try log.reclaimSpace()
    }

    /// The event time of a parsed line.
    @usableFromInline static func time(of input: InputLine) -> Int64 {
        switch input {
        case .beacon(let event): event.time.milliseconds
        case .sighting(let sighting, _): sighting.time.milliseconds
        case .response(let response): response.time.milliseconds
        }
    }
}
