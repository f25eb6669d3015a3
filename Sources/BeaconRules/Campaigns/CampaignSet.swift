/// Campaigns in load order, indexed by beacon once so that an event never scans them all.
public struct CampaignSet: Sendable {
    public let campaigns: [Campaign]
    /// Exact pids to the campaigns (load order) that list them.
    let byBeacon: [BeaconID: [Int32]]
    /// Proximity UUIDs to the campaigns that list them as UUID-only entries.
    let byUUID: [ProximityUUID: [Int32]]
    /// `instantActions`: candidates for every event.
    let instant: [Int32]

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
    }

    public var count: Int { campaigns.count }

    /// The campaigns that may answer an event on `beacon`, in load order, without duplicates.
    public func candidates(for beacon: BeaconID, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let exact = byBeacon[beacon] ?? []
        let uuid = byUUID[beacon.uuid] ?? []
        if uuid.isEmpty && instant.isEmpty { out.append(contentsOf: exact); return }
        out.append(contentsOf: exact)
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
