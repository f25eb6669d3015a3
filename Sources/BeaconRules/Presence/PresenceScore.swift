/// Derived stays scored against a written movement log (`beaconrules presence-score`).
///
/// - A logged stay is **found** when a derived stay of the same subject and room enters within
///   `enterTolerance` of its `from` window and exits (the confirmed exit, which the exit timeout
///   delays) within `exitTolerance` of its `to` window; each derived stay finds one logged stay.
/// - A derived stay is **false** when the log never puts the subject in that room at that time:
///   it overlaps no logged stay of that subject and room, widened by the same tolerances.
/// - Every other derived stay that finds nothing is an **extra** of the logged stay it overlaps most.
/// Derived stays of subjects the log does not name are left out (`ignored`).
package struct PresenceScore: Sendable {
    /// A stay as the presence layer derived it: from the enter to the last presence
    /// (`departedAt`), the exit confirmed at `exit` (`Int64.max`: open at the end of the input).
    package struct Stay: Sendable, Equatable {
        package var subject: String
        package var room: String
        package var enter: Int64
        package var departedAt: Int64
        package var exit: Int64
        package init(subject: String, room: String, enter: Int64, departedAt: Int64, exit: Int64) {
            (self.subject, self.room, self.enter, self.departedAt, self.exit) = (subject, room, enter, departedAt, exit)
        }
        /// From the enter to the last presence.
        package var length: Int64 { departedAt == Int64.max ? Int64.max : Swift.max(0, departedAt - enter) }
    }

    /// What became of a derived stay.
    package enum Verdict: Sendable, Equatable {
        case found(logged: Int), extra(logged: Int), falseStay
    }

    package let log: MovementLog
    package let stays: [Stay]
    /// Per logged stay: the derived stay that found it.
    package private(set) var match: [Int?]
    /// Per logged stay: how many extra derived stays it has.
    package private(set) var extras: [Int]
    /// Per derived stay.
    package private(set) var verdicts: [Verdict]
    package private(set) var ignored = 0

    package static let enterTolerance: Int64 = 60_000
    package static let exitTolerance: Int64 = 90_000

    package init(log: MovementLog, stays derived: [Stay]) {
        let named = Set(log.stays.map(\.subject))
        var kept: [Stay] = []
        for stay in derived { if named.contains(stay.subject) { kept.append(stay) } else { ignored += 1 } }
        kept.sort { ($0.subject, $0.enter, $0.room) < ($1.subject, $1.enter, $1.room) }
        self.log = log
        self.stays = kept
        match = Array(repeating: nil, count: log.stays.count)
        extras = Array(repeating: 0, count: log.stays.count)
        verdicts = Array(repeating: .falseStay, count: kept.count)
        var used = Array(repeating: false, count: kept.count)
        for (l, logged) in log.stays.enumerated() {
            for (d, stay) in kept.enumerated() where !used[d] && stay.subject == logged.subject && stay.room == logged.room {
                let enters = stay.enter >= logged.from.start - Self.enterTolerance && stay.enter <= logged.from.end + Self.enterTolerance
                let exits = stay.exit >= logged.to.start - Self.exitTolerance && stay.exit <= logged.to.end &+ Self.exitTolerance
                if enters && exits {
                    used[d] = true
                    match[l] = d
                    verdicts[d] = .found(logged: l)
                    break
                }
            }
        }
        for (d, stay) in kept.enumerated() where !used[d] {
            var best: (logged: Int, overlap: Int64)?
            for (l, logged) in log.stays.enumerated() where logged.subject == stay.subject && logged.room == stay.room {
                let overlap = Swift.min(stay.departedAt, logged.to.end + Self.exitTolerance) - Swift.max(stay.enter, logged.from.start - Self.enterTolerance)
                if overlap >= 0 && overlap > (best?.overlap ?? -1) { best = (l, overlap) }
            }
            if let best {
                verdicts[d] = .extra(logged: best.logged)
                extras[best.logged] += 1
            }
        }
    }

    /// The stays of a presence log (`PresenceEngine.log`), each pair's side named as `subject` says.
    package static func stays(from outputs: [PresenceOutput], subject: PresenceSubject) -> [Stay] {
        PairStay.stays(in: outputs).map {
            Stay(subject: subject.subject(of: $0.key), room: subject.room(of: $0.key), enter: $0.enter, departedAt: $0.departedAt, exit: $0.exit)
        }
    }

    package var found: Int { match.count { $0 != nil } }
    package var missed: Int { match.count - found }
    package var falseStays: [Stay] { zip(stays, verdicts).filter { $0.1 == .falseStay }.map(\.0) }
    package var extraStays: Int { extras.reduce(0, +) }
    package var mostExtrasPerLoggedStay: Int { extras.max() ?? 0 }
}
