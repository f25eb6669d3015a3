@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// The in-memory store's sweep passes by a device whose earliest expiry (its run's `wake`) is after
/// the cutoff without reading its entries. It must drop exactly what reading every entry drops:
/// after a whole sweep, the store holds the firings a plain model keeps by `FiringExpiry.isExpired`.
@Suite("The in-memory sweep passes by devices with nothing to forget")
struct FiringSweepTests {
    /// Horizons of every kind: none (not loaded: expired at once), 0 (no state kept), short and
    /// long intervals, once-only, and one so long that time plus it overflows.
    static func horizons(_ campaigns: [CampaignID], shorter: Bool) -> [CampaignID: Int64] {
        var horizons: [CampaignID: Int64] = [:]
        for (k, campaign) in campaigns.enumerated() {
            switch k % 6 {
            case 0: break
            case 1: horizons[campaign] = 0
            case 2: horizons[campaign] = shorter ? 1_000 : 60_000
            case 3: horizons[campaign] = shorter ? 5_000 : 3_600_000
            case 4: horizons[campaign] = .max
            default: horizons[campaign] = Int64.max - 10
            }
        }
        return horizons
    }

    /// A model's firings (the last time per device and campaign) less those expired by `expiry`.
    static func kept(_ model: [String: [CampaignID: Int64]], by expiry: FiringExpiry) -> [FiringEntry] {
        var entries: [FiringEntry] = []
        for (device, firings) in model {
            for (campaign, time) in firings where !expiry.isExpired(campaign: campaign, time: time) {
                entries.append(FiringEntry(device: device, campaign: campaign, time: Timestamp(milliseconds: time)))
            }
        }
        return entries.sorted { ($0.device, $0.campaign.canonical) < ($1.device, $1.campaign.canonical) }
    }

    /// Firings recorded between short sweep steps as time moves on (so devices are passed by,
    /// read, emptied and removed, and their numbers given again), campaigns first fired after the
    /// last step (no horizon known when recorded), then new horizons (a reload): every whole sweep
    /// leaves what the model keeps.
    @Test(arguments: [false, true])
    func aWholeSweepLeavesWhatReadingEveryEntryLeaves(reload: Bool) {
        var store = InMemorySuppressionStore()
        let campaigns = (0..<36).map { CampaignID(eid: "c\($0)") }
        var expiry = FiringExpiry(horizons: Self.horizons(campaigns, shorter: false), generation: 1)
        var model: [String: [CampaignID: Int64]] = [:]
        // Seeded: a failure comes back the same on the next run.
        var random = SeededRandom(seed: 21)
        var now: Int64 = 1_780_000_000_000
        for round in 0..<40 {
            // Campaigns 24 and up fire only from round 20 on: their slots are new to the sweep.
            let firing = round < 20 ? 24 : 36
            for _ in 0..<300 {
                now += Int64(random.below(200))
                let device = "dev-\(random.below(400))"
                let campaign = campaigns[random.below(firing)]
                store.recordFiring(device: device, campaign: campaign, at: Timestamp(milliseconds: now))
                model[device, default: [:]][campaign] = now
            }
            if reload && round == 30 {
                expiry = FiringExpiry(horizons: Self.horizons(campaigns, shorter: true), generation: 2)
            }
            expiry.cutoff = now - 2_000
            _ = store.forgetFirings(expiry, limit: 1 + random.below(50))
            if round % 10 == 9 {
                // `.max` goes from where the last step stopped to the end; the second from the start.
                _ = store.forgetFirings(expiry, limit: .max)
                _ = store.forgetFirings(expiry, limit: .max)
                let kept = Self.kept(model, by: expiry)
                #expect(store.entries == kept, "round \(round)")
                #expect(store.deviceCount == Set(kept.map(\.device)).count, "round \(round)")
                model = model.mapValues { $0.filter { !expiry.isExpired(campaign: $0.key, time: $0.value) } }.filter { !$0.value.isEmpty }
            }
        }
    }

    /// `end` says what `isExpired` says at every cutoff below `Int64.max`.
    @Test func anEndAtOrBeforeTheCutoffIsExpired() {
        let horizons: [Int64?] = [nil, 0, 1, 59_999, 60_000, 86_400_000, .max, .max - 1, .max - 100]
        let times: [Int64] = [.min, -1, 0, 1, 1_780_000_000_000, .max - 60_000, .max - 1]
        let cutoffs: [Int64] = [.min, -1, 0, 60_000, 1_780_000_000_000, 1_780_000_060_000, .max - 1]
        for horizon in horizons {
            for time in times {
                let end = FiringExpiry.end(horizon: horizon, time: time)
                for cutoff in cutoffs {
                    let expiry = FiringExpiry(horizons: [:], cutoff: cutoff, generation: 0)
                    #expect((end <= cutoff && end != .max) == expiry.isExpired(horizon: horizon, time: time), "horizon \(String(describing: horizon)), time \(time), cutoff \(cutoff)")
                }
            }
        }
    }
}
