@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `SuppressionStore.lastFirings`: the engine asks once per event for all its candidates. The
/// in-memory store reads the device's run once; its answers must be `lastFiring`'s, one by one.
@Suite("Last firings asked for many campaigns at once")
struct LastFiringsTests {
    /// Every device's answers for every campaign, asked at once in a shuffled order with repeats,
    /// equal the one-by-one answers. Campaign numbers 64 apart share a filter bit, so lookups of
    /// campaigns a device never fired also go through the run.
    @Test func answersAreEachCampaignsLastFiring() {
        var store = InMemorySuppressionStore()
        let campaigns = (0..<200).map { CampaignID(eid: "c\($0)") }
        let keys = campaigns.map { store.key(campaign: $0) }
        // Seeded: a failure comes back the same on the next run.
        var random = SeededRandom(seed: 7)
        for d in 0..<50 {
            let device = store.key(device: "dev-\(d)")
            // Device d fired the campaigns that are multiples of (d % 7 + 1), some twice.
            for c in stride(from: 0, to: 200, by: d % 7 + 1) {
                store.recordFiring(device, keys[c], at: Timestamp(milliseconds: Int64(d * 1000 + c)))
                if c % 3 == 0 { store.recordFiring(device, keys[c], at: Timestamp(milliseconds: Int64(d * 1000 + c + 500))) }
            }
        }
        for d in 0..<50 {
            let device = store.existingKey(device: "dev-\(d)")!
            var asked = keys + keys.prefix(20)
            asked.shuffle(using: &random)
            var times = [Int64?](repeating: -1, count: asked.count)
            asked.withUnsafeBufferPointer { asked in
                times.withUnsafeMutableBufferPointer { store.lastFirings(device, asked, into: $0.baseAddress!) }
            }
            for (k, campaign) in asked.enumerated() {
                #expect(times[k] == store.lastFiring(device, campaign)?.milliseconds)
                let c = Int(campaign)
                let fired = c % (d % 7 + 1) == 0
                #expect(times[k] == (fired ? Int64(d * 1000 + c + (c % 3 == 0 ? 500 : 0)) : nil))
            }
        }
    }

    /// A device with no state answers nil for every campaign, and an empty question writes nothing.
    @Test func aDeviceWithNothingAnswersNil() {
        var store = InMemorySuppressionStore()
        let keys = (0..<70).map { store.key(campaign: CampaignID(eid: "c\($0)")) }
        let device = store.key(device: "quiet")
        var times = [Int64?](repeating: 7, count: keys.count)
        keys.withUnsafeBufferPointer { keys in
            times.withUnsafeMutableBufferPointer { store.lastFirings(device, keys, into: $0.baseAddress!) }
        }
        #expect(times.allSatisfy { $0 == nil })
        var untouched: [Int64?] = [42]
        [UInt32]().withUnsafeBufferPointer { none in
            untouched.withUnsafeMutableBufferPointer { store.lastFirings(device, none, into: $0.baseAddress!) }
        }
        #expect(untouched == [42])
    }
}
