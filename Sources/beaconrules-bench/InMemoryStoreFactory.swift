import BeaconRules

/// The store the measurement fills: the engine's own in-memory store.
enum InMemoryStoreFactory {
    static let campaignIDs = (0..<64).map { CampaignID(canonical: "campaign-\($0)-0123456789abcdef") }

    static func make() -> InMemorySuppressionStore { InMemorySuppressionStore() }

    static func record(_ store: inout InMemorySuppressionStore, device: String, campaign: Int) {
        store.recordFiring(device: device, campaign: campaignIDs[campaign % campaignIDs.count], at: Timestamp(milliseconds: 1_780_639_200_000))
    }
}
