/// What one campaign decides for one event: it fires with a `fireDate`, or the first rule that stopped it.
public enum Verdict: Sendable, Equatable {
    /// Every rule passes: the campaign fires, its record dated `fireDate` (the event time, plus
    /// `delay` when given, or `deliverAt`).
    case fires(fireDate: Timestamp)
    /// The campaign lists neither the beacon nor its proximity UUID.
    case beaconDoesNotMatch
    /// The campaign answers only the other transition.
    case triggerMismatch(Trigger)
    /// Outside every timeframe; the next start after the event, if there is one.
    case outsideTimeframes(nextOpens: Timestamp?)
    /// It fired for this device less than its suppression interval ago; it may fire again at
    /// `until`.
    case suppressed(until: Timestamp)
    /// It is once-only (`sendOnlyOnce` or `suppressionTime: 0`) and fired for this device already.
    case alreadySentOnce
    /// Its `deliverAt` is before the event, so the record would be late.
    case deliverAtPassed(Timestamp)
    /// Another action with the same eid fires for this event; actions sharing an eid are one
    /// campaign and only the first that fires sends (SPEC section 2).
    case sharedEidFiredFirst
    /// A dwell campaign on an enter: it fires only once the device has stayed this long (ms).
    case waitsForDwell(milliseconds: Int64)

    /// The reason in words, as `explain` prints it.
    public var explanation: String {
        switch self {
        case .fires(let date): "fired (fireDate \(date))"
        case .beaconDoesNotMatch: "beacon does not match"
        case .triggerMismatch(let t): t == .exit ? "trigger is exit only" : "trigger is enter only"
        case .outsideTimeframes(let next):
            next.map { "outside timeframes (next opens \($0))" } ?? "outside timeframes (none opens later)"
        case .suppressed(let until): "suppressed until \(until)"
        case .alreadySentOnce: "already sent once"
        case .deliverAtPassed(let at): "deliverAt has passed (\(at))"
        case .sharedEidFiredFirst: "an earlier action with the same eid fires for this event (actions sharing an eid are one campaign)"
        case .waitsForDwell(let ms): "waits for dwell (fires once the device has stayed \(Timestamp(milliseconds: ms).durationText), not on the enter)"
        }
    }

    /// A stable name for machines (`explain --json`).
    public var code: String {
        switch self {
        case .fires: "fired"
        case .beaconDoesNotMatch: "beaconDoesNotMatch"
        case .triggerMismatch: "triggerMismatch"
        case .outsideTimeframes: "outsideTimeframes"
        case .suppressed: "suppressed"
        case .alreadySentOnce: "alreadySentOnce"
        case .deliverAtPassed: "deliverAtPassed"
        case .sharedEidFiredFirst: "sharedEidFiredFirst"
        case .waitsForDwell: "waitsForDwell"
        }
    }
}

extension Campaign {
    /// Applies the matching rules of SPEC section 2 in order: beacon, trigger, timeframes,
    /// once-only, suppression interval, deliverAt. `lastFiring` is this device's state.
    ///
    /// The reference reading of the rules (`explain` answers with it). The hot path decides the
    /// same rules compiled (`CandidateIndex`, `CandidateRow.fireDate`, `RulesEngine.match`);
    /// `WorkloadEquivalenceTests.fastPathGivesExactlyTheReferenceRecords` keeps the two equal.
    /// Change a rule in both.
    @inlinable
    public func verdict(kind: EventKind, beacon: BeaconID, time: Timestamp, lastFiring: Timestamp?) -> Verdict {
        if !isInstant {
            guard beacons.contains(where: { $0.matches(beacon) }) else { return .beaconDoesNotMatch }
            guard trigger.matches(kind) else { return .triggerMismatch(trigger) }
            if kind == .enter && dwellMilliseconds > 0 { return .waitsForDwell(milliseconds: dwellMilliseconds) }
        }
        return verdictAfterMatch(time: time, lastFiring: lastFiring)
    }

    /// The rules after beacon and trigger matched (the index has already matched the beacon).
    @inlinable
    public func verdictAfterMatch(time: Timestamp, lastFiring: Timestamp?) -> Verdict {
        if !timeframes.isEmpty && !timeframes.contains(where: { $0.contains(time) }) {
            let next = timeframes.compactMap(\.start).filter { $0 > time }.min()
            return .outsideTimeframes(nextOpens: next)
        }
        if let last = lastFiring {
            if sendOnlyOnce { return .alreadySentOnce }
            switch suppression {
            case .none: break
            case .once: return .alreadySentOnce
            case .interval(let ms):
                let until = Timestamp(milliseconds: last.milliseconds &+ ms)
                if time < until { return .suppressed(until: until) }
            }
        }
        if delayMilliseconds > 0 { return .fires(fireDate: Timestamp(milliseconds: time.milliseconds &+ delayMilliseconds)) }
        if let deliverAt {
            if time > deliverAt { return .deliverAtPassed(deliverAt) }
            return .fires(fireDate: deliverAt)
        }
        return .fires(fireDate: time)
    }
}
