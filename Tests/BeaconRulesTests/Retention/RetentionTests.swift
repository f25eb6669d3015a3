@testable import BeaconRules
import BeaconRulesServer
@testable import BeaconRulesStore
import BenchmarkWorkload
import Foundation
import Testing

/// SPEC section 5's retention through the line pipeline, as every driver uses it.
@Suite("Retention")
struct RetentionTests {
    typealias Pipeline<Store: SuppressionStore, Log: AnswerLog> = LinePipeline<Store, Log, CollectingOutput>

    static func pipeline<Store: SuppressionStore, Log: AnswerLog>(
        _ campaigns: CampaignSet, store: Store, log: Log, retention: Retention = .default
    ) -> Pipeline<Store, Log> {
        var settings = PresenceSettings()
        settings.flickerControl = false
        let engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: Harness.locales, store: store), settings: settings)
        return LinePipeline(engine: engine, log: log, output: CollectingOutput(), logsPresenceInput: true, retention: retention)
    }

    /// Feeds lines a batch at a time; after each batch, `afterBatch` (forgetting, or nothing).
    /// `startingAt`: the lines before these (their numbers go on from there).
    static func feed<Store, Log>(_ lines: [String], into pipeline: Pipeline<Store, Log>, startingAt first: Int = 0, afterBatch: () throws -> Void = {}) throws {
        for (offset, line) in zip(first..., lines) {
            [UInt8](line.utf8).withUnsafeBufferPointer { bytes in
                if pipeline.appendUsualLayout(bytes, line: offset + 1) { return }
                do throws(EventError) {
                    pipeline.append(try EventParser.parseInputInGeneral(line: bytes, fallbackID: "t:\(offset + 1)"), line: offset + 1, identified: true)
                } catch {
                    pipeline.appendRejected(error.description, line: offset + 1)
                }
            }
            if pipeline.isBatchFull {
                pipeline.applyBatch()
                try afterBatch()
            }
        }
        pipeline.applyBatch()
        try afterBatch()
    }

    static var museum: CampaignSet {
        get throws { try Harness.engine(paths: [Paths.campaigns]).campaigns }
    }

    /// A day of museum visits by many devices, in event-time order (as a stream arrives).
    static func museumTrace() -> [String] {
        MuseumTrace.devices(300, events: 40).flatMap { $0 }.sorted { time(of: $0) < time(of: $1) }
    }

    static func time(of line: String) -> Int64 {
        let tail = line[line.range(of: "\"time\":")!.upperBound...]
        return Int64(tail.prefix { $0.isNumber })!
    }

    // MARK: - Durations

    @Test(arguments: [("90s", 90_000), ("15m", 900_000), ("24h", 86_400_000), ("7d", 604_800_000)] as [(String, Int64)])
    func durationsReadAsTheSPECWritesThem(text: String, milliseconds: Int64) throws {
        #expect(try Retention.milliseconds(text) == milliseconds)
        #expect(try Retention.milliseconds(Retention.text(milliseconds: milliseconds)) == milliseconds)
    }

    @Test(arguments: ["", "7", "d", "7w", "1.5h", "-1h", "0s", " 7d", "7 d", "99999999999999999d"])
    func badDurationsAreRefusedSayingWhatWasExpected(text: String) {
        #expect(throws: RetentionError.self) { try Retention.milliseconds(text) }
        do { _ = try Retention.milliseconds(text) } catch {
            #expect(error.description.hasPrefix("\"\(text)\" is not a duration: expected"))
        }
    }

    // MARK: - Suppression state

    /// Time-ordered traces: an hour of lateness is plenty, and lets state go within them.
    static let hourLate = Retention(lateness: Retention.hour)

    /// Forgetting all it may after every batch gives exactly the records of a run that keeps
    /// everything, and keeps less.
    @Test func forgettingSuppressionStateAfterEveryBatchChangesNoRecordOnTheMuseumTrace() throws {
        let lines = Self.museumTrace()
        let keeping = Self.pipeline(try Self.museum, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed(lines, into: keeping)
        let forgetting = Self.pipeline(try Self.museum, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed(lines, into: forgetting) { try forgetting.forgetExpired(limit: .max) }
        Self.expectSameOutcomes(forgetting.output.outcomes, keeping.output.outcomes)
        #expect(forgetting.engine.engine.store.count < keeping.engine.engine.store.count, "something should have been forgotten")
        #expect(forgetting.engine.engine.store.count > 0, "once-only state stays")
    }

    @Test func forgettingSuppressionStateAfterEveryBatchChangesNoRecordOnTheBenchmarkWorkload() throws {
        let spec = WorkloadEquivalenceTests.spec
        let campaigns = CampaignSet(try Harness.campaigns(String(decoding: spec.campaignsJSON(), as: UTF8.self)))
        let lines = WorkloadEquivalenceTests.events().split(separator: "\n").map(String.init)
        let keeping = Self.pipeline(campaigns, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed(lines, into: keeping)
        let forgetting = Self.pipeline(campaigns, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed(lines, into: forgetting) { try forgetting.forgetExpired(limit: .max) }
        Self.expectSameOutcomes(forgetting.output.outcomes, keeping.output.outcomes)
        #expect(forgetting.engine.engine.store.count < keeping.engine.engine.store.count, "something should have been forgotten")
    }

    @Test func forgettingSuppressionStateInTheStateFileChangesNoRecord() throws {
        let lines = Self.museumTrace()
        let keeping = Self.pipeline(try Self.museum, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed(lines, into: keeping)
        let store = try SQLiteStateStore.inMemory()
        defer { store.close() }
        let forgetting = Self.pipeline(try Self.museum, store: store, log: NoAnswerLog(), retention: Self.hourLate)
        try store.begin()
        try Self.feed(lines, into: forgetting) { try forgetting.forgetExpired(limit: .max) }
        try store.commit()
        Self.expectSameOutcomes(forgetting.output.outcomes, keeping.output.outcomes)
        #expect(try store.firings().count < keeping.engine.engine.store.count)
    }

    static func expectSameOutcomes(_ a: [CollectingOutput.Outcome], _ b: [CollectingOutput.Outcome]) {
        #expect(a.count == b.count)
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            Issue.record("line \(i + 1) differs:\nforgetting: \(x)\nkeeping:    \(y)")
            return
        }
    }

    @Test func onceOnlyStateGoesOnlyWithItsCampaign() throws {
        let once = #"{"eid":"once","type":1,"trigger":1,"sendOnlyOnce":true,"content":{"subject":"S"},"beacons":["\#(LinePipelineTests.pid)"]}"#
        let campaigns = CampaignSet(try Harness.campaigns(once))
        let pipeline = Self.pipeline(campaigns, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        try Self.feed([Self.enter("e-1", at: 0), Self.enter("e-2", at: 400 * Retention.day)], into: pipeline)
        try pipeline.forgetExpired(limit: .max)
        #expect(pipeline.engine.engine.store.count == 1)
        pipeline.reload(campaigns: CampaignSet([]), locales: Harness.locales)
        try pipeline.forgetExpired(limit: .max)
        #expect(pipeline.engine.engine.store.count == 0)
    }

    /// A soak in small: 30,000 devices seen once each, a second apart, state forgotten a step
    /// after every batch as a server does. The devices held follow the devices with state (those
    /// of the last hour, the lateness, and the sweep's lag), not every device ever seen, and go to
    /// one when the stream moves on; their numbers are given again, so the table stops growing.
    @Test func devicesAreForgottenWithTheirLastStateAndTheirNumbersGivenAgain() throws {
        let pipeline = Self.pipeline(CampaignSet(try Harness.campaigns(Self.suppressed)), store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: Self.hourLate)
        let devices = 30_000
        var largest = 0
        for chunk in stride(from: 0, to: devices, by: 1_000) {
            let lines = (chunk..<chunk + 1_000).map { Self.enter("e-\($0)", device: "soak-device-\($0)", at: Int64($0) * 1_000) }
            try Self.feed(lines, into: pipeline) {
                try pipeline.forgetExpired()
                largest = max(largest, pipeline.engine.engine.store.deviceCount)
            }
        }
        let store = pipeline.engine.engine.store
        #expect(store.count == store.deviceCount, "one entry a device")
        // An hour of devices (3,600) plus the sweep's lag (it looks at two devices a line, so a
        // device waits up to half a round of the table): under twice that, never all 30,000.
        #expect(largest < 12_000, "\(largest) devices held at most")
        // A batch's new devices come before its step frees any: a batch more, at most.
        #expect(store.numberedDevices <= largest + Pipeline<InMemorySuppressionStore, NoAnswerLog>.batchSize, "numbers are given again, not new ones")
        #expect(pipeline.output.outcomes.allSatisfy { if case .accepted(_, let records) = $0 { !records.isEmpty } else { false } })

        // Two days later, one event: every other device's state is past, and so is the device.
        try Self.feed([Self.enter("late", device: "soak-device-0", at: Int64(devices) * 1_000 + 2 * Retention.day)], into: pipeline)
        // `.max` sweeps from where the last step stopped to the end; the second call from the start.
        try pipeline.forgetExpired(limit: .max)
        try pipeline.forgetExpired(limit: .max)
        #expect(pipeline.engine.engine.store.deviceCount == 1)
        #expect(pipeline.engine.engine.store.lastFiring(device: "soak-device-0", campaign: CampaignID(canonical: "c1")) != nil)
        #expect(pipeline.engine.engine.store.lastFiring(device: "soak-device-1", campaign: CampaignID(canonical: "c1")) == nil)
    }

    static func enter(_ id: String, device: String = "d-1", at ms: Int64) -> String {
        #"{"id":"\#(id)","device":"\#(device)","type":"enter","beacon":"\#(LinePipelineTests.pid)","time":\#(1_780_000_000_000 + ms)}"#
    }

    // MARK: - Answers

    static let suppressed = #"{"eid":"c1","type":1,"trigger":1,"suppressionTime":60,"content":{"subject":"S"},"beacons":["\#(LinePipelineTests.pid)"]}"#

    /// A resend within the answer retention gets the same bytes; after it, the id is new. Each
    /// round runs in `transaction` (which runs its body between a begin and a commit).
    func resendWithinRetentionGetsTheSameBytesAndAfterItIsApplied<Store: SuppressionStore, Log: AnswerLog>(
        store: Store, log: Log, transaction: (_ body: () throws -> Void) async throws -> Void = { try $0() }
    ) async throws {
        let pipeline = Self.pipeline(CampaignSet(try Harness.campaigns(Self.suppressed)), store: store, log: log)
        let t0 = Timestamp(milliseconds: 1_780_000_000_000)
        func round(_ lines: [String], at clock: Timestamp) async throws {
            try await transaction {
                pipeline.setWallClock(clock)
                try Self.feed(lines, into: pipeline)
                try pipeline.settle()
            }
        }
        try await round([Self.enter("e-1", at: 0)], at: t0)
        guard case .accepted(_, let first) = pipeline.output.outcomes.last else { Issue.record("not applied"); return }
        #expect(first.contains("\"id\":\"c1:d-1:e-1\""))
        // Another event 2 minutes later (event time) fires again: the suppression is 60 s.
        try await round([Self.enter("e-2", at: 120_000)], at: Timestamp(milliseconds: t0.milliseconds + Retention.hour))
        try await round([Self.enter("e-1", at: 0)], at: Timestamp(milliseconds: t0.milliseconds + 23 * Retention.hour))
        #expect(pipeline.output.outcomes.last == .answered("e-1", records: first))
        // A day and a minute after: forgotten, so e-1 is a new event, suppressed by e-2's firing.
        try await round([], at: Timestamp(milliseconds: t0.milliseconds + Retention.day + Retention.minute))
        try await round([Self.enter("e-1", at: 0)], at: Timestamp(milliseconds: t0.milliseconds + Retention.day + 2 * Retention.minute))
        #expect(pipeline.output.outcomes.last == .accepted("e-1", records: ""))
    }

    @Test func resendInMemoryWithinRetentionGetsTheSameBytesAndAfterItIsApplied() async throws {
        let log = MemoryStateLog()
        defer { log.close() }
        try await resendWithinRetentionGetsTheSameBytesAndAfterItIsApplied(store: InMemorySuppressionStore(), log: log)
        // e-1's new answer, and e-2's (given 23 h before).
        #expect(log.answerCount == 2)
    }

    @Test func resendWithStateWithinRetentionGetsTheSameBytesAndAfterItIsApplied() async throws {
        let store = try SQLiteStateStore.inMemory()
        defer { store.close() }
        try await resendWithinRetentionGetsTheSameBytesAndAfterItIsApplied(store: store, log: store) { body in
            try store.begin()
            try body()
            try store.commit()
        }
        #expect(try store.answers().map(\.event) == ["e-1", "e-2"])
    }

    // MARK: - Deliveries

    static func response(_ id: String, to record: String, at ms: Int64) -> String {
        #"{"type":"response","id":"\#(id)","device":"d-1","notification":"\#(record)","action":"open","time":\#(1_780_000_000_000 + ms)}"#
    }

    /// A response within the window is taken; one later than the window after the record's
    /// fireDate is refused as too late, before and after the delivery is forgotten; an id never
    /// delivered is refused as unknown.
    @Test func aResponseAfterTheWindowIsRefusedAsTooLate() throws {
        let retention = Retention(answers: Retention.day, responseWindow: Retention.hour, responseLateness: Retention.minute)
        let pipeline = Self.pipeline(CampaignSet(try Harness.campaigns(Self.suppressed)), store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: retention)
        try Self.feed([
            Self.enter("e-1", at: 0),
            Self.response("r-1", to: "c1:d-1:e-1", at: 59 * Retention.minute),
            Self.response("r-2", to: "c1:d-1:e-1", at: 61 * Retention.minute),
            Self.response("r-3", to: "c1:d-1:nope", at: 61 * Retention.minute),
        ], into: pipeline)
        let outcomes = pipeline.output.outcomes
        #expect(outcomes[1] == .accepted("r-1", records: ""))
        guard case .rejected(_, let late) = outcomes[2], case .rejected(_, let unknown) = outcomes[3] else {
            Issue.record("expected two refusals: \(outcomes)")
            return
        }
        #expect(late.contains("was delivered longer ago than the response window (1h)"))
        #expect(late.contains("it fired at 2026-05-28T20:26:40Z"))
        #expect(unknown.contains("is not the id of a notification record this engine delivered"))
        // Event time moves on past the window and the lateness: the delivery is forgotten, and a
        // response to it is still told apart from an unknown id.
        try Self.feed([Self.enter("e-3", device: "d-2", at: 2 * Retention.hour)], into: pipeline)
        try pipeline.forgetExpired(limit: .max)
        #expect(pipeline.engine.engine.ledger.count == 1)
        try Self.feed([Self.response("r-4", to: "c1:d-1:e-1", at: 2 * Retention.hour)], into: pipeline)
        guard case .rejected(_, let forgotten) = pipeline.output.outcomes.last else { Issue.record("not refused"); return }
        #expect(forgotten.contains("was delivered longer ago than the response window (1h)"))
    }

    // MARK: - Bounded under a steady stream

    /// A steady stream through the pipeline as `serve` drives it (the small soak): new ids, a pool
    /// of 5,000 devices, event time moving on a second per event and the wall clock 2 ms per
    /// event, batches of 256 with a step of forgetting each. Returns `size()` after each quarter.
    func steadyStream<Store: SuppressionStore, Log: AnswerLog>(
        store: Store, log: Log, events: Int, begin: () throws -> Void = {}, commit: () throws -> Void = {}, size: (Pipeline<Store, Log>) throws -> Int
    ) throws -> [Int] {
        // 60 s of answers: 30,000 events; 1 h of responses: 3,600 events.
        let retention = Retention(answers: Retention.minute, responseWindow: Retention.hour, lateness: Retention.minute, responseLateness: Retention.minute)
        let pipeline = Self.pipeline(try Self.museum, store: store, log: log, retention: retention)
        try pipeline.loadLedger()
        var sizes: [Int] = []
        let t0: Int64 = 1_780_000_000_000
        var n = 0
        while n < events {
            try begin()
            pipeline.setWallClock(Timestamp(milliseconds: t0 + Int64(n) * 2))
            var lines: [String] = []
            for k in n..<n + 256 {
                let beacon = MuseumTrace.beacons[k % 4]
                lines.append(#"{"id":"s-\#(k)","device":"dev-\#(k % 5_000)","type":"\#(k % 3 == 0 ? "exit" : "enter")","beacon":"\#(beacon)","time":\#(t0 + Int64(k) * 1000),"locale":"de-DE"}"#)
            }
            try Self.feed(lines, into: pipeline)
            pipeline.output = CollectingOutput()
            try pipeline.settle()
            try commit()
            n += 256
            if n % (events / 4) < 256 { sizes.append(try size(pipeline)) }
        }
        return sizes
    }

    @Test func inMemoryStateLevelsOffUnderASteadyStream() throws {
        let log = MemoryStateLog()
        defer { log.close() }
        var deliveries: [Int] = []
        let sizes = try steadyStream(store: InMemorySuppressionStore(), log: log, events: 200_000) { pipeline in
            deliveries.append(pipeline.engine.engine.ledger.count)
            return log.answerCount
        }
        #expect(sizes.count == 4)
        // Past the first quarter (50,000 events, more than the 30,000 answers of a minute), the
        // answers kept stay at about a minute's, and the deliveries at about an hour's.
        #expect(sizes[1] <= 31_000 && sizes[3] <= 31_000, "answers kept: \(sizes)")
        #expect(deliveries[3] <= deliveries[1] + deliveries[1] / 4, "deliveries kept: \(deliveries)")
    }

    @Test func theStateFileStopsGrowingUnderASteadyStream() throws {
        let path = Paths.temporaryDirectory() + "/soak.db"
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        let sizes = try steadyStream(store: store, log: store, events: 120_000, begin: store.begin, commit: store.commit) { _ in
            Int(try store.pageBytes())
        }
        #expect(sizes.count == 4)
        // The last half adds nothing lasting: pages freed by forgetting are used again.
        #expect(sizes[3] <= sizes[1] + sizes[1] / 4, "file sizes by quarter: \(sizes)")
        #expect(try store.answers().count <= 31_000)
        let ledger = try store.loadLedger()
        #expect(ledger.count < 10_000, "deliveries kept: \(ledger.count)")
    }

    /// A state file made before retention (no incremental vacuum) is switched when it is opened.
    @Test func aStateFileMadeWithoutIncrementalVacuumIsSwitchedOnOpen() throws {
        let path = Paths.temporaryDirectory() + "/old.db"
        do {
            // No checkpointer thread: its connection, open beside this one, makes leaving WAL
            // mode busy (it failed so under load, the thread's open racing the PRAGMA).
            let store = try SQLiteStateStore(path: path, checkpoints: .betweenCommits)
            try store.db.execute("PRAGMA journal_mode = DELETE")
            try store.db.execute("PRAGMA auto_vacuum = NONE")
            try store.db.execute("VACUUM")
            #expect(try store.db.integer("PRAGMA auto_vacuum") == 0)
            store.close()
        }
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(try store.db.integer("PRAGMA auto_vacuum") == 2)
    }
}
