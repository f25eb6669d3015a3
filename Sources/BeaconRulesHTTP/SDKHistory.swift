package import BeaconRules

/// The history a Sensorberg SDK posts to `POST /layout` for its installation (`X-iid`):
/// `deviceTimestamp`; `events` (`pid`, or `bid` from the first SDKs, `dt`, `trigger` 1 enter or
/// 2 exit, `location`), the beacon transitions the phone saw; `actions` (`eid`, `pid`, `dt`,
/// `trigger`), the campaigns it showed; `conversions` (`action`, `dt`, `type`), what the user did
/// with one. Dates are RFC 3339 (the SDKs write `2016-05-10T16:00:00.000+0200` or `+02:00`) or
/// epoch milliseconds; unknown members are ignored, as the resolver ignores them.
package struct SDKHistory: Sendable {
    /// A beacon transition the phone saw.
    package struct Event: Sendable, Hashable {
        package var beacon: BeaconID
        package var time: Timestamp
        package var kind: EventKind
    }

    /// A campaign the phone showed.
    package struct Action: Sendable, Hashable {
        package var eid: String
        package var time: Timestamp
    }

    /// What the user did with a shown campaign: `type` 1 converted (opened), 0 ignored
    /// (dismissed), -1 suppressed by the app, -2 not shown (notifications not allowed).
    package struct Conversion: Sendable, Hashable {
        package var action: String
        package var time: Timestamp
        package var type: Int
    }

    package var deviceTimestamp: Timestamp?
    package var events: [Event] = []
    package var actions: [Action] = []
    package var conversions: [Conversion] = []

    /// Whether there is anything to apply.
    package var isEmpty: Bool { events.isEmpty && actions.isEmpty && conversions.isEmpty }

    /// Reads a body; an empty one is an empty history. Throws with every problem's place
    /// (`events[3].dt`, line and column) and what was expected.
    package static func parse(_ bytes: [UInt8]) throws(SDKHistoryError) -> SDKHistory {
        var history = SDKHistory()
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return history }
        let document: JSONValue
        do { document = try JSONParser.parse(bytes) } catch {
            throw SDKHistoryError(problems: ["line \(error.line), column \(error.column): \(error.message)"])
        }
        guard let members = document.objectMembers else {
            throw SDKHistoryError(problems: ["line 1, column 1: expected the history object {\"deviceTimestamp\": ..., \"events\": [...], \"actions\": [...], \"conversions\": [...]}, found \(document.kindName)"])
        }
        var reader = Reader()
        for member in members {
            switch member.key {
            case "deviceTimestamp": history.deviceTimestamp = reader.date(member.value, "deviceTimestamp", member.line, member.column)
            case "events": history.events = reader.objects(member).compactMap { reader.event($0.0, $0.1) }
            case "actions": history.actions = reader.objects(member).compactMap { reader.action($0.0, $0.1) }
            case "conversions": history.conversions = reader.objects(member).compactMap { reader.conversion($0.0, $0.1) }
            default: continue
            }
        }
        if !reader.problems.isEmpty { throw SDKHistoryError(problems: reader.problems) }
        return history
    }

    /// One pass over the members, collecting every problem.
    private struct Reader {
        var problems: [String] = []

        mutating func problem(_ path: String, _ line: Int, _ column: Int, _ message: String) {
            problems.append("\(path) at line \(line), column \(column): \(message)")
        }

        /// The array's objects, each with its path (`events[3]`).
        mutating func objects(_ member: JSONMember) -> [(JSONElement, String)] {
            if member.value.isNull { return [] }
            guard let elements = member.value.arrayElements else {
                problem(member.key, member.line, member.column, "expected an array, found \(member.value.kindName)")
                return []
            }
            var objects: [(JSONElement, String)] = []
            for (i, element) in elements.enumerated() {
                let path = "\(member.key)[\(i)]"
                guard element.value.objectMembers != nil else {
                    problem(path, element.line, element.column, "expected an object, found \(element.value.kindName)")
                    continue
                }
                objects.append((element, path))
            }
            return objects
        }

        mutating func event(_ element: JSONElement, _ path: String) -> Event? {
            let count = problems.count
            let pid = element.value.member("pid") ?? element.value.member("bid")
            var beacon: BeaconID?
            if let pid {
                if let text = pid.value.stringValue, let id = BeaconID(pid: text) { beacon = id } else {
                    problem("\(path).\(pid.key)", pid.line, pid.column, "expected a 42-char pid (32 hex proximity UUID + 5-digit major + 5-digit minor), found \(pid.value.compactText)")
                }
            } else {
                problem(path, element.line, element.column, "missing `pid` (the beacon's 42-char pid; `bid` in the first SDKs)")
            }
            let time = required(element, "dt", path).flatMap { date($0.value, "\(path).dt", $0.line, $0.column) }
            var kind: EventKind?
            if let trigger = required(element, "trigger", path) {
                switch trigger.value.integerValue {
                case 1: kind = .enter
                case 2: kind = .exit
                default: problem("\(path).trigger", trigger.line, trigger.column, "expected 1 (enter) or 2 (exit), found \(trigger.value.compactText)")
                }
            }
            guard problems.count == count, let beacon, let time, let kind else { return nil }
            return Event(beacon: beacon, time: time, kind: kind)
        }

        mutating func action(_ element: JSONElement, _ path: String) -> Action? {
            let count = problems.count
            let eid = eid(element, "eid", path)
            let time = required(element, "dt", path).flatMap { date($0.value, "\(path).dt", $0.line, $0.column) }
            guard problems.count == count, let eid, let time else { return nil }
            return Action(eid: eid, time: time)
        }

        mutating func conversion(_ element: JSONElement, _ path: String) -> Conversion? {
            let count = problems.count
            let action = eid(element, "action", path)
            let time = required(element, "dt", path).flatMap { date($0.value, "\(path).dt", $0.line, $0.column) }
            var type: Int?
            if let m = required(element, "type", path) {
                if let n = m.value.integerValue, (-2...1).contains(n) { type = Int(n) } else {
                    problem("\(path).type", m.line, m.column, "expected 1 (converted), 0 (ignored), -1 (suppressed) or -2 (unavailable), found \(m.value.compactText)")
                }
            }
            guard problems.count == count, let action, let time, let type else { return nil }
            return Conversion(action: action, time: time, type: type)
        }

        /// The member `key`, a campaign's eid: a non-empty string.
        mutating func eid(_ element: JSONElement, _ key: String, _ path: String) -> String? {
            guard let m = required(element, key, path) else { return nil }
            if let text = m.value.stringValue, !text.isEmpty { return text }
            problem("\(path).\(key)", m.line, m.column, "expected the campaign's eid (a non-empty string), found \(m.value.compactText)")
            return nil
        }

        mutating func required(_ element: JSONElement, _ key: String, _ path: String) -> JSONMember? {
            if let member = element.value.member(key) { return member }
            problem(path, element.line, element.column, "missing `\(key)`")
            return nil
        }

        /// RFC 3339 (a date without a zone is UTC) or epoch milliseconds.
        mutating func date(_ value: JSONValue, _ path: String, _ line: Int, _ column: Int) -> Timestamp? {
            if case .number = value, let ms = value.integerValue { return Timestamp(milliseconds: ms) }
            if let text = value.stringValue, case .time(let time, _) = Timestamp.parseRFC3339(text) { return time }
            problem(path, line, column, "expected an RFC 3339 date (2016-05-10T16:00:00.000+0200) or epoch milliseconds, found \(value.compactText)")
            return nil
        }
    }
}

/// A history that cannot be read: every problem, each with where it is.
package struct SDKHistoryError: Error, Sendable, CustomStringConvertible {
    package var problems: [String]

    package var description: String { problems.joined(separator: "; ") }
}
