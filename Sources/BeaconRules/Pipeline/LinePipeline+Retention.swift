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
    /// commit) looks at one a line.
    public static var forgettingStep: Int { 32 }
    /// Entries `settle` looks at per line applied since the last, on top of `forgettingStep`:
    /// forgetting keeps pace with what the lines add.
    public static var forgettingPerLine: Int { 4 }

    /// Forgets answers older than the answer retention (wall clock), suppression state that can no
    /// longer change a decision and deliveries past their response window (event time, less the
    /// lateness each allows), looking at no more than `limit` entries of each kind (by default a
    /// step sized to the lines applied since the last call). Inside the caller's transaction.
    /// `limit: .max` forgets all that can go at once (tests).
    public func forgetExpired(limit: Int? = nil) throws {
        let step = limit ?? max(Self.forgettingStep, appliedSinceSettle &* Self.forgettingPerLine)
        let firingStep = limit ?? max(Self.forgettingStep, appliedSinceSettle)
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
