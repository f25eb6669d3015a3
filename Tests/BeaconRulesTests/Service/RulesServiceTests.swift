import BeaconRules
import BeaconRulesService
import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import Testing

@Suite("RulesService")
struct RulesServiceTests {
    let trace = "Tests/Fixtures/museum-day.jsonl"
    var golden: String { Paths.read(Paths.fixture("museum-day.records.jsonl")) }
    var traceLines: [String] { Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init) }

    func museum(_ state: StateStorage = .inMemory) throws -> RulesService {
        try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), state: state)
    }

    @Test func theExampleTargetPrintsTheGoldenRecordsWithSQLiteState() throws {
        let state = Paths.temporaryDirectory() + "/museum.state"
        let run = try CommandRunner.run([state], executable: Paths.executable("museum-embedding"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == golden)
    }

    @Test func recordsOfEventsProcessedOneByOneAreTheCLIsBytes() async throws {
        let rules = try museum()
        var out = ""
        for (n, line) in traceLines.enumerated() {
            let event = try EventParser.parse(line: line, fallbackID: "\(trace):\(n + 1)")
            for record in try await rules.process(event) { out += record.json + "\n" }
        }
        #expect(out == golden)
    }

    @Test func theBatchAndTheStreamGiveTheSameRecordsAsOneByOne() async throws {
        let events = try traceLines.enumerated().map { try EventParser.parse(line: $1, fallbackID: "\(trace):\($0 + 1)") }
        let batch = try await museum().process(events).joined().map { $0.json + "\n" }.joined()
        #expect(batch == golden)
        let stream = AsyncStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish()
        }
        var streamed = ""
        for try await record in try museum().records(for: stream) { streamed += record.json + "\n" }
        #expect(streamed == golden)
    }

    @Test func codableGivesTheSameJSONObjectAsTheSpecBytes() throws {
        for line in golden.split(separator: "\n") {
            let record = try Record(json: String(line))
            let encoded = try JSONEncoder().encode(record)
            let viaCodable = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
            let spec = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
            #expect(viaCodable == spec)
            let decoded = try JSONDecoder().decode(Record.self, from: encoded)
            #expect(try JSONSerialization.jsonObject(with: Data(decoded.json.utf8)) as? NSDictionary == spec)
            #expect(decoded.id == record.id)
        }
    }

    @Test func aStateKeptByReplayIsTheServicesStateAndTheOtherWayRound() async throws {
        let state = Paths.temporaryDirectory() + "/shared.state"
        let replay = try CommandRunner.run(["replay", trace, "--state", state])
        #expect(replay.stdout == golden)
        // The same ids again: answered from the log with the same records, as replay answers them.
        let rules = try museum(.sqlite(path: state))
        let again = try await rules.process(lines: traceLines, source: trace)
        #expect(again.flatMap { outcome -> [Record] in if case .accepted(_, let r) = outcome { r } else { [] } }.map { $0.json + "\n" }.joined() == golden)
        // A new event of the service's is suppressed by replay's firing (welcome: once an hour).
        let enter = #"{"id":"svc-1","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:10:00+02:00"}"#
        let records = try await rules.process(EventParser.parse(line: enter, fallbackID: "x"))
        #expect(!records.contains { $0.campaign == "museum-welcome" })
        await rules.close()
        // And replay sees the service's answer for svc-1 in the file.
        let after = try CommandRunner.run(["replay", "--state", state], stdin: enter + "\n")
        #expect(after.stdout == records.map { $0.json + "\n" }.joined())
    }

    @Test func aLineThatIsNotInputIsRefusedWithReplaysMessageAndCostsNoOther() async throws {
        let rules = try museum()
        let bad = #"{"device":"anna","type":"enter"}"#
        let outcomes = try await rules.process(lines: [bad, traceLines[0]], source: "stdin")
        let cli = try CommandRunner.run(["replay"], stdin: bad + "\n")
        guard case .rejected(let rejection) = outcomes[0] else { Issue.record("not rejected: \(outcomes[0])"); return }
        #expect(rejection.line == 1)
        #expect(cli.stderr.contains(String(data: try JSONEncoder().encode(rejection.message), encoding: .utf8)!))
        guard case .accepted("ev-01", let records) = outcomes[1] else { Issue.record("not accepted: \(outcomes[1])"); return }
        #expect(!records.isEmpty)
    }

    @Test func everyLineReplayRefusesIsRefusedWithReplaysLineAndMessage() async throws {
        let broken = "Tests/Fixtures/museum-broken.jsonl"
        // Lines as the API takes them: a line that is not UTF-8 cannot be a `String`, so it is
        // left out of both sides.
        let raw = Paths.bytes(Paths.fixture("museum-broken.jsonl")).split(separator: 0x0A, omittingEmptySubsequences: false)
        let notText = Set(raw.indices.filter { String(validating: raw[$0], as: UTF8.self) == nil }.map { $0 + 1 })
        let lines = raw.map { String(decoding: $0, as: UTF8.self) }
        let outcomes = try await museum().process(lines: lines, source: broken)
        var refused: [LineRejected] = []
        for case .rejected(let rejection) in outcomes where rejection.message != LineIntake.blankLineMessage { refused.append(rejection) }
        let golden = try Paths.read(Paths.fixture("museum-broken.errors.jsonl")).split(separator: "\n").map { line in
            let error = try JSONDecoder().decode([String: JSONScalar].self, from: Data(line.utf8))
            return LineRejected(line: error["line"]?.integer ?? 0, message: error["message"]?.text ?? "")
        }
        #expect(notText.count == 1)
        #expect(refused.filter { !notText.contains($0.line) } == golden.filter { !notText.contains($0.line) })
    }

    @Test func aResponseToAnUnknownRecordThrowsWhatReplaySays() async throws {
        let rules = try museum()
        let response = ResponseEvent(id: "r-1", device: "anna", notification: "nope:anna:x", action: .present, time: Timestamp(milliseconds: 0))
        await #expect(throws: LineRejected.self) { try await rules.respond(response) }
    }

    @Test func reloadSwapsTheCampaignsBetweenCallsAndKeepsTheState() async throws {
        let rules = try museum()
        let enter = try EventParser.parse(line: traceLines[0], fallbackID: "x")
        #expect(try await rules.process(enter).contains { $0.campaign == "museum-welcome" })
        try await rules.reload(campaigns: [.json("[]", name: "none.json")], locales: .none)
        var second = enter
        second.id = "ev-01-again"
        #expect(try await rules.process(second).isEmpty)
        #expect(await rules.catalog.campaigns.campaigns.isEmpty)
    }

    @Test func campaignsThatDoNotLoadThrowEveryErrorWithItsPlace() throws {
        #expect {
            try RulesService(campaigns: [.json(#"{"eid": 3}"#, name: "bad.json")], locales: .none)
        } throws: { error in
            guard let error = error as? CampaignLoadError else { return false }
            return !error.diagnostics.isEmpty && error.description.hasPrefix("bad.json:1:")
        }
    }

    @Test func explainSaysWhyEachCampaignFiresOrNot() async throws {
        let rules = try museum()
        let explanations = try await rules.explain(try EventParser.parse(line: traceLines[0], fallbackID: "x"))
        let cli = try CommandRunner.run(["explain", traceLines[0]])
        #expect(explanations.map { $0.text + "\n" }.joined() == cli.stdout)
    }

    @Test func theServiceStopsAndClosesItsStateOnGracefulShutdown() async throws {
        let state = Paths.temporaryDirectory() + "/lifecycle.state"
        let rules = try museum(.sqlite(path: state))
        let group = ServiceGroup(services: [rules], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            _ = try await rules.process(EventParser.parse(line: traceLines[0], fallbackID: "x"))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        await #expect(throws: LineRejected.self) { try await rules.process(EventParser.parse(line: traceLines[1], fallbackID: "y")) }
    }
}

@Suite("RulesService: events and responses as Codable")
struct EventCodableTests {
    @Test func anEventRoundTripsThroughJSONEncoderAndDecoder() throws {
        let line = #"{"id":"ev-01","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00+02:00","locale":"de-DE"}"#
        let event = try EventParser.parse(line: line, fallbackID: "x")
        #expect(event.json == #"{"id":"ev-01","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T08:00:00Z","locale":"de-DE"}"#)
        let decoded = try JSONDecoder().decode(BeaconEvent.self, from: JSONEncoder().encode(event))
        #expect(decoded == event)
        #expect(try JSONDecoder().decode(BeaconEvent.self, from: Data(line.utf8)) == event)
    }

    @Test func aBadEventIsRefusedWithTheParsersMessage() throws {
        let bad = #"{"id":"e","device":"anna","type":"enter","time":"2026-06-05T10:00:00Z"}"#
        #expect {
            try JSONDecoder().decode(BeaconEvent.self, from: Data(bad.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.hasPrefix("missing field `beacon`")
        }
    }

    /// A click on a share button makes a follow-up record (SPEC section 8): the service gives it
    /// typed, as its JSON says, and goes on (it stopped the process before follow-ups had a kind).
    @Test func aClickOnAnActionGivesAFollowUpRecord() async throws {
        let rules = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        let trace = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        _ = try await rules.process(lines: trace, source: "trace")
        let click = ResponseEvent(
            id: "r-click", device: "anna", notification: "museum-goodbye:anna:ev-07", action: .click, actionId: "ok",
            time: Timestamp(milliseconds: 1_780_649_460_000))
        let records = try await rules.respond(click)
        let followUp = try #require(records.first)
        #expect(records.count == 1)
        #expect(followUp.kind == .followUp)
        #expect(followUp.json.hasPrefix(#"{"kind":"followUp","id":"museum-goodbye:anna:ev-07:ok","notification":"museum-goodbye:anna:ev-07""#))
        #expect(followUp.followUp?.actionId == "ok")
        #expect(followUp.followUp?.action.kind.name == "share")
        #expect(followUp.campaign == "museum-goodbye")
        #expect(followUp.event == nil && followUp.trigger == nil && followUp.beacon == nil)
        #expect(try Record(json: followUp.json) == followUp)
        // The service answers on.
        #expect(try await rules.process(lines: [trace[0]], source: "again").count == 1)
        await rules.close()
    }

    @Test func aWithdrawnRecordReadsBackTyped() throws {
        let line = #"{"kind":"withdrawn","id":"c1:d:e1","campaign":"c1","device":"d","event":"e2","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","fireDate":"2026-06-05T09:00:00Z","withdrawnAt":"2026-06-05T08:40:00Z"}"#
        let record = try Record(json: line)
        #expect(record.kind == .withdrawn)
        #expect(record.event == "e2")
        #expect(record.withdrawnAt == Date(timeIntervalSince1970: 1_780_648_800))
        #expect(record.fireDate == Date(timeIntervalSince1970: 1_780_650_000))
        #expect(record.actionType == nil && record.followUp == nil)
    }

    @Test func aResponseRoundTrips() throws {
        let line = #"{"id":"r-02","type":"response","device":"anna","notification":"museum-welcome:anna:ev-01","action":"click","actionId":"ok","time":"2026-06-05T08:00:30Z"}"#
        let response = try JSONDecoder().decode(ResponseEvent.self, from: Data(line.utf8))
        #expect(response.json == line)
        #expect(try JSONDecoder().decode(ResponseEvent.self, from: JSONEncoder().encode(response)) == response)
    }
}

@Suite("RulesService: metrics under serve's names")
struct ServiceMetricsTests {
    @Test func eventsRecordsRejectionsAndReloadsAreCounted() async throws {
        let metrics = TestMetrics()
        let rules = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), metrics: metrics)
        let trace = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        let golden = Paths.read(Paths.fixture("museum-day.records.jsonl"))
        _ = try await rules.process(lines: trace + ["not json"], source: "trace")
        let response = ResponseEvent(id: "r", device: "anna", notification: "nope:anna:x", action: .present, time: Timestamp(milliseconds: 0))
        _ = try? await rules.respond(response)
        try await rules.reload(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        #expect(try metrics.expectCounter("beaconrules_events_total").totalValue == 21)
        let silent = golden.split(separator: "\n").filter { $0.hasPrefix(#"{"kind":"silent""#) }.count
        #expect(try metrics.expectCounter("beaconrules_records_total", [("kind", "silent")]).totalValue == Int64(silent))
        #expect(try metrics.expectCounter("beaconrules_records_total", [("kind", "notification")]).totalValue == Int64(39 - silent))
        #expect(try metrics.expectCounter("beaconrules_lines_rejected_total", [("reason", "invalid_line")]).totalValue == 1)
        #expect(try metrics.expectCounter("beaconrules_lines_rejected_total", [("reason", "refused")]).totalValue == 1)
        #expect(try metrics.expectCounter("beaconrules_reloads_total", [("result", "ok")]).totalValue == 1)
        #expect(try metrics.expectTimer("beaconrules_commit_seconds").values.count == 2)
    }
}

/// A member of a `kind: error` line: its line number or its text.
private enum JSONScalar: Decodable {
    case integer(Int)
    case text(String)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) { self = .integer(n) } else { self = .text(try c.decode(String.self)) }
    }

    var integer: Int? { if case .integer(let n) = self { n } else { nil } }
    var text: String? { if case .text(let t) = self { t } else { nil } }
}
