import BeaconRules
@testable import BeaconRulesStore
import Testing

/// The state file answers an event's candidates with one statement (the device's rows); the
/// answers must be `lastFiring`'s, one by one.
@Suite("State file: last firings asked for many campaigns at once")
struct SQLiteLastFiringsTests {
    @Test func answersAreEachCampaignsLastFiringWithOneStatement() throws {
        let store = try SQLiteStateStore.inMemory()
        defer { store.close() }
        let campaigns = (0..<40).map { CampaignID(eid: "c\($0)") }
        try store.begin()
        for d in 0..<20 {
            // Device d fired the campaigns that are multiples of (d % 5 + 1), some twice.
            for c in stride(from: 0, to: 40, by: d % 5 + 1) {
                store.recordFiring(device: "dev-\(d)", campaign: campaigns[c], at: Timestamp(milliseconds: Int64(d * 1000 + c)))
                if c % 3 == 0 { store.recordFiring(device: "dev-\(d)", campaign: campaigns[c], at: Timestamp(milliseconds: Int64(d * 1000 + c + 500))) }
            }
        }
        try store.commit()
        // Every campaign, some twice, one never loaded, in a mixed order; and a device never seen.
        let asked: [CampaignID] = Array(campaigns.reversed()) + Array(campaigns.prefix(5)) + [CampaignID(eid: "unknown")]
        for device in (0..<20).map({ "dev-\($0)" }) + ["dev-none"] {
            var times = [Int64?](repeating: -1, count: asked.count)
            asked.withUnsafeBufferPointer { asked in
                times.withUnsafeMutableBufferPointer { store.lastFirings(device, asked, into: $0.baseAddress!) }
            }
            for (k, campaign) in asked.enumerated() {
                #expect(times[k] == store.lastFiring(device: device, campaign: campaign)?.milliseconds, "\(device) \(campaign)")
            }
        }
        var one: [Int64?] = [-1]
        [campaigns[0]].withUnsafeBufferPointer { asked in
            one.withUnsafeMutableBufferPointer { store.lastFirings("dev-0", asked, into: $0.baseAddress!) }
        }
        #expect(one == [500])
    }
}
