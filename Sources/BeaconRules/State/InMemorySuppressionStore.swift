/// Suppression state in memory, compact: device ids and campaign ids are interned once, and each
/// (device, campaign) entry is one 8-byte key and one 8-byte time in a flat hash table.
public struct InMemorySuppressionStore: SuppressionStore, Sendable {
    private var deviceSlots: [String: UInt32] = [:]
    private var devices: [String] = []
    private var campaignSlots: [CampaignID: UInt32] = [:]
    private var campaigns: [CampaignID] = []
    private var firings: [UInt64: Int64] = [:]

    public init() {}

    public init(entries: some Sequence<FiringEntry>) {
        for entry in entries { recordFiring(device: entry.device, campaign: entry.campaign, at: entry.time) }
    }

    public var count: Int { firings.count }

    public func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        guard let d = deviceSlots[device], let c = campaignSlots[campaign] else { return nil }
        return firings[UInt64(d) << 32 | UInt64(c)].map(Timestamp.init(milliseconds:))
    }

    public mutating func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        let d = intern(device)
        let c: UInt32
        if let slot = campaignSlots[campaign] { c = slot } else {
            c = UInt32(campaigns.count)
            campaignSlots[campaign] = c
            campaigns.append(campaign)
        }
        firings[UInt64(d) << 32 | UInt64(c)] = time.milliseconds
    }

    private mutating func intern(_ device: String) -> UInt32 {
        if let slot = deviceSlots[device] { return slot }
        let slot = UInt32(devices.count)
        deviceSlots[device] = slot
        devices.append(device)
        return slot
    }

    /// Every entry, sorted by device then campaign (a stable order for files and tests).
    public var entries: [FiringEntry] {
        firings.map { key, ms in
            FiringEntry(device: devices[Int(key >> 32)], campaign: campaigns[Int(key & 0xFFFF_FFFF)], time: Timestamp(milliseconds: ms))
        }.sorted { ($0.device, $0.campaign.canonical) < ($1.device, $1.campaign.canonical) }
    }
}
