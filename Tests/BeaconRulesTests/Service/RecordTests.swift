import BeaconRules
import BeaconRulesService
import Foundation
import Testing

/// `Record`'s typed members against the JSON `replay` writes (read here by Foundation, not by
/// the engine's parser), and against what the engine decided.
@Suite("Record: typed members")
struct RecordTests {
    var goldenLines: [String] { Paths.read(Paths.fixture("museum-day.records.jsonl")).split(separator: "\n").map(String.init) }

    @Test func typedMembersOfEveryMuseumRecordEqualItsJSONMembers() throws {
        let lines = goldenLines
        #expect(lines.count == 39)
        for line in lines {
            let record = try Record(json: line)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(record.json == line)
            #expect(record.kind.rawValue == object["kind"] as? String)
            #expect(record.id == object["id"] as? String)
            #expect(record.campaign == object["campaign"] as? String)
            #expect(record.device == object["device"] as? String)
            #expect(record.event == object["event"] as? String)
            #expect(record.trigger?.name == object["trigger"] as? String)
            #expect(record.beacon?.description == object["beacon"] as? String)
            #expect(record.fireDate == Self.date(object["fireDate"] as? String))
            #expect(record.fireTime.description == object["fireDate"] as? String)
            #expect(record.actionType?.name == object["actionType"] as? String)
            for (member, value) in [("language", record.language), ("title", record.title), ("subtitle", record.subtitle), ("body", record.body), ("url", record.url)] {
                #expect(value == object[member] as? String, "\(record.id): \(member)")
            }
            #expect(Self.foundation(record.payload) == Self.foundation(object["payload"]), "\(record.id): payload")
            let category = object["category"] as? [String: Any]
            #expect(record.category?.id == category?["id"] as? String)
            let buttons = category?["actions"] as? [[String: Any]] ?? []
            #expect(record.category?.actions.count ?? 0 == buttons.count)
            for (action, button) in zip(record.category?.actions ?? [], buttons) {
                #expect(action.id == button["id"] as? String)
                #expect(action.title == button["title"] as? String)
                #expect(action.behavior == button["behavior"] as? String)
                #expect(action.foreground == button["foreground"] as? Bool)
                #expect(action.destructive == button["destructive"] as? Bool)
                #expect(action.authenticationRequired == button["authenticationRequired"] as? Bool)
            }
        }
    }

    @Test func aSilentRecordHasNoTitleBodyOrCategory() throws {
        let silent = try #require(try goldenLines.map { try Record(json: $0) }.first { $0.kind == .silent })
        #expect(silent.title == nil && silent.body == nil && silent.category == nil)
        #expect(silent.actionType == .silent)
    }

    @Test func theRecordTheEngineDecidedIsTheRecordReadFromItsLine() throws {
        let catalog = try RulesCatalog(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        var engine = RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: InMemorySuppressionStore())
        let trace = "Tests/Fixtures/museum-day.jsonl"
        var lines: [String] = []
        for (n, line) in Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").enumerated() {
            for decided in engine.process(try EventParser.parse(line: String(line), fallbackID: "\(trace):\(n + 1)")).map({ Record($0) }) {
                let read = try Record(json: decided.json)
                #expect(Self.sameMembers(decided, read), "\(decided.id)")
                lines.append(decided.json)
            }
        }
        #expect(lines == goldenLines)
    }

    @Test func aRecordWithAMemberOfTheWrongTypeIsRefusedNamingIt() throws {
        let line = try #require(goldenLines.first).replacingOccurrences(of: #""foreground":true"#, with: #""foreground":"yes""#)
        #expect(throws: RecordJSONError(message: "record member `category.actions[0].foreground`: expected true or false, found \"yes\"")) {
            try Record(json: line)
        }
    }

    @Test func aRecordWithoutFireDateIsRefusedNamingIt() throws {
        let line = try #require(goldenLines.first).replacingOccurrences(of: #""fireDate":"2026-06-05T08:00:00Z","#, with: "")
        #expect(throws: RecordJSONError(message: "record member `fireDate`: expected a string, found no such member")) {
            try Record(json: line)
        }
    }

    @Test func decodingAnObjectThatIsNoRecordSaysWhichMember() throws {
        let bad = Data(#"{"kind":"reminder"}"#.utf8)
        #expect {
            try JSONDecoder().decode(Record.self, from: bad)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription == "record member `kind`: expected `notification`, `silent`, `followUp` or `withdrawn`, found \"reminder\""
        }
    }

    /// Every typed member equal (JSON values by content: the engine's carry the campaign file's
    /// line numbers).
    static func sameMembers(_ a: Record, _ b: Record) -> Bool {
        let heads: [Bool] = [
            a.json == b.json, a.kind == b.kind, a.id == b.id, a.campaign == b.campaign, a.device == b.device,
            a.event == b.event, a.trigger == b.trigger, a.beacon == b.beacon, a.fireDate == b.fireDate,
            a.fireTime == b.fireTime, a.actionType == b.actionType, a.language == b.language, a.title == b.title,
        ]
        let bodies: [Bool] = [
            a.subtitle == b.subtitle, a.body == b.body, a.url == b.url, a.mediaAttachment == b.mediaAttachment,
            a.payload.sameContent(as: b.payload), a.category?.id == b.category?.id,
            a.category?.actions.count == b.category?.actions.count,
            a.notificationAction?.kind == b.notificationAction?.kind,
        ]
        let pairs = zip(a.category?.actions ?? [], b.category?.actions ?? [])
        let actions = pairs.allSatisfy { x, y in sameAction(x, y) }
        return !heads.contains(false) && !bodies.contains(false) && actions
    }

    static func sameAction(_ x: CategoryAction, _ y: CategoryAction) -> Bool {
        let flags: [Bool] = [
            x.id == y.id, x.title == y.title, x.behavior == y.behavior, x.foreground == y.foreground,
            x.destructive == y.destructive, x.authenticationRequired == y.authenticationRequired,
        ]
        let value: Bool = (x.value ?? .null).sameContent(as: y.value ?? .null)
        return !flags.contains(false) && value
    }

    /// RFC 3339 as Foundation reads it (with or without milliseconds).
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// A JSON value as Foundation holds it, for comparison with what `JSONSerialization` read.
    static func foundation(_ value: Any?) -> NSObject? {
        if let value = value as? JSONValue {
            var w = JSONWriter(capacity: 256)
            w.value(value)
            return try? JSONSerialization.jsonObject(with: Data(w.bytes), options: .fragmentsAllowed) as? NSObject
        }
        return value as? NSObject
    }
}
