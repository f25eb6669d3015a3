@testable import BeaconRules
import BenchmarkWorkload
import Foundation
import Testing

/// `RulesEngine.prefetch` only loads: records and state are the same with it, and `replay`, which
/// parses lines ahead in batches to prefetch them, keeps every output in line order.
@Suite("Prefetching batches of events")
struct PrefetchTests {
    /// The workload's events written one at a time, each batch of `batch` prefetched first. As
    /// `replay` does: lines in the usual layout read in place, others parsed and copied in.
    static func replayPrefetching(_ text: String, batch size: Int, engine: inout RulesEngine<InMemorySuppressionStore>) throws -> String {
        var writer = JSONWriter()
        var batch = InPlaceEventBatch(bytes: 256)
        func flush() {
            engine.prefetch(batch)
            for i in 0..<batch.count { engine.write(batch, at: i, into: &writer) }
            batch.removeAll()
        }
        for (offset, line) in text.split(separator: "\n").enumerated() {
            // Every tenth line in another key order, so that it goes through the general parser.
            if offset % 10 == 3 {
                batch.append(try EventParser.parse(line: String(line.replacingOccurrences(of: "{\"id\"", with: "{ \"id\"")), fallbackID: "workload.jsonl:\(offset + 1)"))
            } else {
                let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
                #expect(read)
            }
            if batch.count == size { flush() }
        }
        flush()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test(arguments: [1, 7, 32, 500])
    func prefetchedBatchesGiveTheSameRecordsAndState(batch: Int) throws {
        let campaigns = CampaignSet(try Harness.campaigns(String(decoding: WorkloadEquivalenceTests.spec.campaignsJSON(), as: UTF8.self)))
        let events = WorkloadEquivalenceTests.events()
        var plain = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: InMemorySuppressionStore())
        var prefetched = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: InMemorySuppressionStore())
        let (expected, errors) = Harness.replay(events, source: "workload.jsonl", engine: &plain)
        #expect(errors.isEmpty)
        let got = try Self.replayPrefetching(events, batch: batch, engine: &prefetched)
        #expect(got.count > 1_000_000, "the workload should exercise many records")
        #expect(got == expected)
        #expect(prefetched.store.entries == plain.store.entries)
        #expect(prefetched.ledger.count == plain.ledger.count)
    }

    /// What a prefetch found is used only for the batch it was made for, and only for the
    /// events that batch held then: a batch emptied and filled again, another batch, and events
    /// appended after the prefetch are all looked up afresh.
    @Test func whatAPrefetchFoundIsUsedOnlyForTheEventsItWasMadeFor() throws {
        var engine = try Harness.engine(ResponseTests.campaign)
        var reference = try Harness.engine(ResponseTests.campaign)
        let known = Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en")
        let other = Harness.event(beacon: String(repeating: "0", count: 32) + "0000100001", at: "2026-05-10T16:00:00Z", device: "d2", id: "e2", locale: "en")
        var writer = JSONWriter()
        var expected = ""
        func write(_ batch: borrowing InPlaceEventBatch, _ i: Int, _ event: BeaconEvent) {
            engine.write(batch, at: i, into: &writer)
            for record in reference.process(event) { expected += record.jsonLine + "\n" }
        }
        // d1 and its beacon become known, as prefetched for a batch of [known].
        var batch = InPlaceEventBatch()
        batch.append(known)
        engine.prefetch(batch)
        write(batch, 0, known)
        // The same batch refilled with another device and beacon: nothing of the prefetch applies.
        batch.removeAll()
        batch.append(other)
        write(batch, 0, other)
        // Another batch at the same place, and an event appended after the prefetch.
        var second = InPlaceEventBatch()
        second.append(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-11T16:00:00Z", device: "d3", id: "e3", locale: "en"))
        engine.prefetch(batch)
        write(second, 0, Harness.event(beacon: ResponseTests.beacon, at: "2026-05-11T16:00:00Z", device: "d3", id: "e3", locale: "en"))
        batch.append(known)
        write(batch, 1, known)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
        #expect(expected.split(separator: "\n").count == 3)
        #expect(engine.store.entries == reference.store.entries)
    }

    @Test func prefetchingBeaconsAndDevicesNeverSeenChangesNothing() throws {
        var engine = try Harness.engine(ResponseTests.campaign)
        let unknown = Harness.event(beacon: String(repeating: "0", count: 32) + "0000100001", at: "2026-05-10T16:00:00Z", device: "nobody")
        let known = Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en")
        engine.prefetch([unknown, known, known])
        #expect(engine.store.count == 0)
        #expect(engine.numberedBeacons == 0)
        #expect(engine.process(known).count == 1)
    }

    /// Errors (bad lines, unknown notifications) and warnings (clicks with no handler) come out
    /// on stderr in line order, across several prefetch batches (32 lines each), and records in
    /// event order on stdout.
    @Test func replayKeepsRecordsErrorsAndWarningsInLineOrderAcrossBatches() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ResponseTests.campaign.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let b = ResponseTests.beacon
        var lines: [String] = []
        for n in 1...100 {
            switch n {
            case 20, 34: lines.append("{\"device\":\"d\(n)\",\"type\":\"enter\"")
            case 33, 65:
                let d = n == 33 ? 1 : 5
                lines.append(#"{"type":"response","device":"d\#(d)","notification":"offer:d\#(d):e\#(d)","action":"click","actionId":"coupon","time":"2026-05-10T16:03:00Z"}"#)
            case 66: lines.append(#"{"type":"response","device":"d1","notification":"offer:d1:unknown","action":"click","time":"2026-05-10T16:03:00Z"}"#)
            default: lines.append("{\"id\":\"e\(n)\",\"device\":\"d\(n)\",\"type\":\"enter\",\"beacon\":\"\(b)\",\"time\":\"2026-05-10T16:00:00Z\",\"locale\":\"en\"}")
            }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/t.jsonl", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", dir + "/t.jsonl", "--campaigns", dir + "/c.json"])
        #expect(result.status == 1)
        let messages = result.stderr.split(separator: "\n").map { line in
            let object = try? JSONParser.parse(String(line))
            return "\(object?["kind"]?.stringValue ?? "?") \(object?["line"]?.integerValue ?? -1)"
        }
        #expect(messages == ["error 20", "warning 33", "error 34", "warning 65", "error 66"])
        let events = result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONParser.parse(String(line)))?["event"]?.stringValue
        }
        let expected = (1...100).filter { ![20, 33, 34, 65, 66].contains($0) }.map { "e\($0)" }
        #expect(events == expected)
    }
}
