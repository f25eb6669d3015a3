@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// An output that keeps each line's outcome, in order.
struct CollectingOutput: LineOutput {
    enum Outcome: Equatable {
        case accepted(String, records: String)
        case answered(String, records: String)
        case rejected(line: Int, message: String)
    }
    var records = JSONWriter()
    var outcomes: [Outcome] = []
    private var start = 0

    mutating func accepted(event id: @autoclosure () -> String) {
        outcomes.append(.accepted(id(), records: String(decoding: records.bytes[start...], as: UTF8.self)))
        start = records.bytes.count
    }
    mutating func answered(event id: String, records answer: [UInt8]) {
        outcomes.append(.answered(id, records: String(decoding: answer, as: UTF8.self)))
    }
    mutating func rejected(line: Int, message: String) { outcomes.append(.rejected(line: line, message: message)) }
    mutating func unhandled(_ click: UnhandledClick, line: Int) {}
    mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64) {}
}

/// A log that keeps answers in a dictionary.
final class DictionaryLog: AnswerLog {
    var answers: [String: [UInt8]] = [:]
    func answer(event id: String) -> [UInt8]? { answers[id] }
    func remember(event id: String, records: [UInt8]) { answers[id] = records }
    func loadLedger() -> DeliveryLedger { DeliveryLedger() }
    func saveLedger(_ lines: [DeliveryLedger.Line]) {}
    func loadPresence() -> [UInt8]? { nil }
    func savePresence(_ snapshot: [UInt8]) {}
    func appendOutbox(_ records: [UInt8]) {}
    func outbox(after: Int64, limit: Int) -> [(seq: Int64, records: [UInt8])] { [] }
}

@Suite("LinePipeline")
struct LinePipelineTests {
    static let pid = "7367672374000000ffff0000ffff00070733107331"
    static let campaign = #"{"eid":"c1","type":1,"trigger":1,"content":{"subject":"S","body":"B"},"beacons":["\#(pid)"]}"#

    static func pipeline<Log: AnswerLog>(log: Log, campaigns: CampaignSet) -> LinePipeline<InMemorySuppressionStore, Log, CollectingOutput> {
        var settings = PresenceSettings()
        settings.flickerControl = false
        let engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: Harness.locales, store: InMemorySuppressionStore()), settings: settings)
        return LinePipeline(engine: engine, log: log, output: CollectingOutput(), logsPresenceInput: false)
    }

    static func feed<Log: AnswerLog>(_ text: String, source: String, into pipeline: LinePipeline<InMemorySuppressionStore, Log, CollectingOutput>) {
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            [UInt8](line.utf8).withUnsafeBufferPointer { bytes in
                if EventParser.isBlank(bytes) { return }
                if pipeline.appendUsualLayout(bytes, line: number) { return }
                var positional = false
                do throws(EventError) {
                    let input = try EventParser.parseInputInGeneral(line: bytes, fallbackID: { positional = true; return "\(source):\(number)" }())
                    pipeline.append(input, line: number, identified: !positional)
                } catch {
                    pipeline.appendRejected(error.description, line: number)
                }
            }
            if pipeline.isBatchFull { pipeline.applyBatch() }
        }
        pipeline.applyBatch()
        pipeline.finish()
    }

    @Test func batchedLinesGiveTheRecordsAndErrorsOfOneLineAtATime() throws {
        let campaigns = CampaignSet(try Harness.campaigns(String(decoding: WorkloadEquivalenceTests.spec.campaignsJSON(), as: UTF8.self)))
        // Every seventh line broken, so that errors sit among the records of a batch.
        let lines = WorkloadEquivalenceTests.events().split(separator: "\n").enumerated().map { offset, line in
            offset % 7 == 5 ? String(line.dropLast(3)) : String(line)
        }
        let text = lines.joined(separator: "\n")
        var engine = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: InMemorySuppressionStore())
        let (expected, expectedErrors) = Harness.replay(text, source: "workload.jsonl", engine: &engine)
        let pipeline = Self.pipeline(log: NoAnswerLog(), campaigns: campaigns)
        Self.feed(text, source: "workload.jsonl", into: pipeline)
        #expect(String(decoding: pipeline.output.records.bytes, as: UTF8.self) == expected)
        var errors: [Int: String] = [:]
        for case .rejected(let line, let message) in pipeline.output.outcomes { errors[line] = message }
        #expect(!errors.isEmpty)
        #expect(errors == expectedErrors)
    }

    @Test func anEventIDSeenBeforeIsAnsweredFromTheLogAndChangesNothing() throws {
        let campaigns = CampaignSet(try Harness.campaigns(Self.campaign))
        let enter = #"{"id":"e-1","device":"d-1","type":"enter","beacon":"\#(Self.pid)","time":"2026-01-01T10:00:00Z"}"#
        let later = #"{"id":"e-1","device":"d-1","type":"enter","beacon":"\#(Self.pid)","time":"2026-01-01T11:00:00Z"}"#
        let pipeline = Self.pipeline(log: DictionaryLog(), campaigns: campaigns)
        Self.feed(enter + "\n" + later, source: "t", into: pipeline)
        guard case .accepted("e-1", let records) = pipeline.output.outcomes.first else {
            Issue.record("first line not accepted: \(pipeline.output.outcomes)")
            return
        }
        #expect(!records.isEmpty)
        #expect(pipeline.output.outcomes.last == .answered("e-1", records: records))
        // Answered from the log: nothing new written for the second line.
        #expect(String(decoding: pipeline.output.records.bytes, as: UTF8.self) == records)
    }

    @Test func eventsKnownByTheirPlaceAreNotLogged() throws {
        let campaigns = CampaignSet(try Harness.campaigns(Self.campaign))
        let noID = #"{"device":"d-1","type":"enter","beacon":"\#(Self.pid)","time":"2026-01-01T10:00:00Z"}"#
        let log = DictionaryLog()
        let pipeline = Self.pipeline(log: log, campaigns: campaigns)
        Self.feed(noID + "\n" + noID, source: "t", into: pipeline)
        #expect(log.answers.isEmpty)
        #expect(pipeline.output.outcomes.count == 2)
        for outcome in pipeline.output.outcomes {
            guard case .accepted(_, let records) = outcome else {
                Issue.record("not accepted: \(outcome)")
                continue
            }
            #expect(!records.isEmpty)
        }
    }
}
