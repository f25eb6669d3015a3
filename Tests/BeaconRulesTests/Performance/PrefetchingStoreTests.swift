@testable import BeaconRules
import BeaconRulesPostgres
import BenchmarkWorkload
import Testing

/// The stores that read ahead for a batch are reached through the package protocol
/// `PrefetchingSuppressionStore` (the public `SuppressionStore` does not name the batch): the
/// engine asks such a store once per batch and starts each write from the keys it gave, and never
/// asks a store without it. Records are the same either way.
@Suite("Prefetching stores")
struct PrefetchingStoreTests {
    /// A string-keyed store, as a user would write one: no read-ahead.
    class Plain: SuppressionStore {
        var firings: [String: Timestamp] = [:]
        func lastFiring(device: String, campaign: CampaignID) -> Timestamp? { firings[device + " " + campaign.canonical] }
        func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) { firings[device + " " + campaign.canonical] = time }
    }

    /// The same store, reading ahead: it counts the batches it is asked about and gives every key.
    final class Counting: Plain, PrefetchingSuppressionStore {
        var batches = 0, keysGiven = 0
        func prefetch(devicesOf events: borrowing InPlaceEventBatch, keys: inout [String?]) -> UInt64 {
            batches += 1
            for i in 0..<events.count {
                keys[i] = events[i].event.device
                keysGiven += 1
            }
            return 0
        }
    }

    /// The lines written in batches of 32, each prefetched first, as the line pipeline does.
    static func records<Store: SuppressionStore>(_ lines: [Substring], engine: inout RulesEngine<Store>) -> String {
        var writer = JSONWriter()
        var batch = InPlaceEventBatch(bytes: 256)
        for start in stride(from: 0, to: lines.count, by: 32) {
            batch.removeAll()
            for line in lines[start..<min(start + 32, lines.count)] {
                let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
                #expect(read)
            }
            engine.prefetch(batch)
            for i in 0..<batch.count { engine.write(batch, at: i, into: &writer) }
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func prefetches<Store: SuppressionStore>(_: Store.Type) -> Bool {
        Store.self is any PrefetchingSuppressionStore.Type
    }

    @Test func theEngineAsksAPrefetchingStoreOncePerBatchAndTheRecordsAreTheSame() throws {
        let campaigns = CampaignSet(try Harness.campaigns(String(decoding: WorkloadEquivalenceTests.spec.campaignsJSON(), as: UTF8.self)))
        let lines = Array(WorkloadEquivalenceTests.events().split(separator: "\n").prefix(2_000))
        let counting = Counting()
        var asked = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: counting)
        var plain = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: Plain())
        var inMemory = RulesEngine(campaigns: campaigns, locales: Harness.locales, store: InMemorySuppressionStore())
        let expected = Self.records(lines, engine: &inMemory)
        #expect(expected.count > 10_000)
        #expect(Self.records(lines, engine: &asked) == expected)
        #expect(Self.records(lines, engine: &plain) == expected)
        #expect(counting.batches == (lines.count + 31) / 32)
        #expect(counting.keysGiven == lines.count)
    }

    @Test func theInMemoryAndPostgreSQLStoresReadAheadAndOthersDoNot() {
        #expect(Self.prefetches(InMemorySuppressionStore.self))
        #expect(Self.prefetches(PostgresStateStore.self))
        #expect(!Self.prefetches(Plain.self))
    }
}
