/// Campaigns in load order, indexed by beacon once so that an event never scans them all, and
/// compiled into flat rules for the hot path.
public struct CampaignSet: Sendable {
    public let campaigns: [Campaign]
    /// Exact pids to the campaigns (load order) that list them.
    let byBeacon: [BeaconID: [Int32]]
    /// Proximity UUIDs to the campaigns that list them as UUID-only entries.
    let byUUID: [ProximityUUID: [Int32]]
    /// `instantActions`: candidates for every event.
    let instant: [Int32]
    /// One compiled rule per campaign, same order.
    let rules: [CompiledRule]
    /// Timeframe (start, end) pairs of all rules; open bounds are `Int64.min` / `Int64.max`.
    let frameBounds: [Int64]
    /// The distinct campaign ids, by `CompiledRule.idSlot`.
    public let campaignIDs: [CampaignID]
    /// Each campaign's eid as JSON string contents (escaped, no quotes), for writing records.
    let escapedEids: [[UInt8]]

    public init(_ campaigns: [Campaign]) {
        self.campaigns = campaigns
        var byBeacon: [BeaconID: [Int32]] = [:]
        var byUUID: [ProximityUUID: [Int32]] = [:]
        var instant: [Int32] = []
        for (i, campaign) in campaigns.enumerated() {
            let index = Int32(i)
            if campaign.isInstant { instant.append(index); continue }
            for pattern in campaign.beacons {
                switch pattern {
                case .exact(let id):
                    if byBeacon[id]?.last != index { byBeacon[id, default: []].append(index) }
                case .proximityUUID(let uuid):
                    if byUUID[uuid]?.last != index { byUUID[uuid, default: []].append(index) }
                case .geofence: break
                }
            }
        }
        self.byBeacon = byBeacon
        self.byUUID = byUUID
        self.instant = instant
        (rules, frameBounds, campaignIDs) = Self.compile(campaigns)
        escapedEids = campaigns.map { JSONWriter.escaped($0.eid) }
    }

    public var count: Int { campaigns.count }

    /// The campaigns that may answer an event on `beacon`, in load order, without duplicates.
    public func candidates(for beacon: BeaconID, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let exact = byBeacon[beacon] ?? []
        let uuid = byUUID[beacon.uuid] ?? []
        out.append(contentsOf: exact)
        if uuid.isEmpty && instant.isEmpty { return }
        out.append(contentsOf: uuid)
        out.append(contentsOf: instant)
        out.sort()
        var last: Int32 = -1
        out.removeAll { index in
            defer { last = index }
            return index == last
        }
    }
}
