@testable import BeaconRules
import Foundation
import Testing

/// Recorded traces in, the exact records out (`Tests/Fixtures/*.jsonl` and their `.records.jsonl`).
@Suite("Golden traces")
struct GoldenTraceTests {
    @Test func museumDayGivesTheRecordedRecords() throws {
        var engine = try Harness.engine(paths: [Paths.campaigns])
        let source = "Tests/Fixtures/museum-day.jsonl"
        let (records, errors) = Harness.replay(Paths.read(Paths.fixture("museum-day.jsonl")), source: source, engine: &engine)
        #expect(errors.isEmpty)
        #expect(records == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }

    @Test func brokenTraceKeepsEveryGoodRecordAndOneErrorPerBadLine() throws {
        var engine = try Harness.engine(paths: [Paths.campaigns])
        let source = "Tests/Fixtures/museum-broken.jsonl"
        let (records, errors) = Harness.replay(bytes: Paths.bytes(Paths.fixture("museum-broken.jsonl")), source: source, engine: &engine)
        #expect(records == Paths.read(Paths.fixture("museum-broken.records.jsonl")))
        var expected: [Int: String] = [:]
        for line in Paths.read(Paths.fixture("museum-broken.errors.jsonl")).split(separator: "\n") {
            let object = try JSONParser.parse(String(line))
            expected[Int(object["line"]!.integerValue!)] = object["message"]!.stringValue!
        }
        #expect(errors == expected)
        // Every line that is neither blank nor rejected produced records.
        #expect(Set(records.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["event"]?.stringValue }) == ["b-01", "b-28", "b-30"])
    }

    @Test func everyRecordOfTheMuseumDayHasTheDocumentedShape() throws {
        for line in Paths.read(Paths.fixture("museum-day.records.jsonl")).split(separator: "\n") {
            let record = try JSONParser.parse(String(line))
            let keys = try #require(record.objectMembers).map(\.key)
            if record["kind"] == .string("silent") {
                #expect(keys == ["kind", "id", "campaign", "device", "event", "trigger", "beacon", "fireDate", "actionType", "language", "url", "payload"])
            } else {
                #expect(keys == ["kind", "id", "campaign", "device", "event", "trigger", "beacon", "fireDate", "actionType", "language", "title", "body", "url", "category", "notificationAction", "payload"])
                let actions = try #require(record["category"]?["actions"]?.arrayElements)
                #expect(actions.map { $0.value["id"] } == [.string("ok"), .string("cancel")])
                #expect(actions[1].value["foreground"] == .bool(false))
            }
            let id = try #require(record["id"]?.stringValue)
            #expect(id == "\(record["campaign"]!.stringValue!):\(record["device"]!.stringValue!):\(record["event"]!.stringValue!)")
        }
    }
}
