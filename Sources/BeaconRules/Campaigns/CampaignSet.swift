/// Campaigns in load order, indexed by beacon once so that an event never scans them all, and
/// compiled into flat rules for the hot path.
public struct CampaignSet: Sendable {
    /// The campaigns in load order, which is the order ties between actions of one eid are decided
    /// in.
    public let campaigns: [Campaign]
    /// Exact pids, numbered; the campaigns (load order) that list pid n are
    /// `exactCampaigns[exactStarts[n]..<exactStarts[n + 1]]`.
    let exactBeacons: NumberingTable<BeaconID>
    let exactStarts: [Int32]
    let exactCampaigns: [Int32]
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
    /// Every campaign's eid as JSON string contents (escaped, no quotes), back to back, for records;
    /// campaign i's is `eidBytes[eidOffsets[i]..<eidOffsets[i + 1]]`.
    let eidBytes: [UInt8]
    let eidOffsets: [Int]
    /// Per `CompiledRule.idSlot`: whether any action with that eid reads state (suppression or once-only).
    /// Campaigns that never read it neither look it up nor write it.
    let keepsState: [Bool]

    /// Indexes `campaigns` by beacon and compiles their rules: once per load, never per event.
    public init(_ campaigns: [Campaign]) {
        self.campaigns = campaigns
        // Exact pids are numbered as they come and listed as (pid, campaign) pairs, then grouped by
        // pid in one counting pass: a table of 100,000s of pids each owning an array cost an
        // allocation and a SipHash per entry.
        var exactBeacons = NumberingTable<BeaconID>(minimumCapacity: campaigns.count * 2)
        var pairs: [(beacon: Int32, campaign: Int32)] = []
        pairs.reserveCapacity(campaigns.count * 2)
        // Per pid, the last campaign paired with it: a campaign that lists a pid twice is listed under it once.
        var lastCampaign: [Int32] = []
        var byUUID: [ProximityUUID: [Int32]] = [:]
        var instant: [Int32] = []
        // Fields are read in place (`campaigns[i].x`): binding each `Campaign` to a local would copy
        // it, retaining every string and array it holds, 100,000s of times.
        for i in campaigns.indices {
            let index = Int32(i)
            if campaigns[i].isInstant { instant.append(index); continue }
            for pattern in campaigns[i].beacons {
                switch pattern {
                case .exact(let id):
                    let beacon = exactBeacons.number(id) ?? exactBeacons.add(id)
                    if beacon == lastCampaign.count { lastCampaign.append(-1) }
                    if lastCampaign[beacon] != index {
                        lastCampaign[beacon] = index
                        pairs.append((Int32(beacon), index))
                    }
                case .proximityUUID(let uuid):
                    byUUID[uuid, default: []].appendUnlessLast(index)
                case .geofence: break
                }
            }
        }
        var starts = [Int32](repeating: 0, count: exactBeacons.count + 1)
        for pair in pairs { starts[Int(pair.beacon) + 1] += 1 }
        for n in 0..<exactBeacons.count { starts[n + 1] += starts[n] }
        var next = starts
        var exactCampaigns = [Int32](repeating: 0, count: pairs.count)
        for pair in pairs {
            exactCampaigns[Int(next[Int(pair.beacon)])] = pair.campaign
            next[Int(pair.beacon)] += 1
        }
        self.exactBeacons = exactBeacons
        self.exactStarts = starts
        self.exactCampaigns = exactCampaigns
        self.byUUID = byUUID
        self.instant = instant
        (rules, frameBounds, campaignIDs) = Self.compile(campaigns)
        var eids = JSONWriter(capacity: campaigns.count * 34)
        var offsets = [0]
        offsets.reserveCapacity(campaigns.count + 1)
        for i in campaigns.indices {
            eids.escapedContents(campaigns[i].eid)
            offsets.append(eids.bytes.count)
        }
        eidBytes = eids.bytes
        eidOffsets = offsets
        var keeps = [Bool](repeating: false, count: campaignIDs.count)
        for rule in rules where rule.onceOnly || rule.interval > 0 { keeps[Int(rule.idSlot)] = true }
        keepsState = keeps
    }

    /// How many campaigns (actions) are loaded.
    public var count: Int { campaigns.count }

    /// Whether any campaign waits for a dwell (then the presence layer must track given streams).
    public var hasDwell: Bool { rules.contains { $0.dwell > 0 } }

    /// The distinct dwell lengths (ms, ascending) of the campaigns that may answer `beacon`.
    public func dwellLengths(for beacon: BeaconID) -> [Int64] {
        var list: [Int32] = []
        candidates(for: beacon, into: &list)
        var lengths: [Int64] = []
        for index in list where rules[Int(index)].dwell > 0 && rules[Int(index)].triggerMask & 1 != 0 {
            let dwell = rules[Int(index)].dwell
            if !lengths.contains(dwell) { lengths.append(dwell) }
        }
        return lengths.sorted()
    }

    /// The campaigns that may answer an event on `beacon`, in load order, without duplicates.
    public func candidates(for beacon: BeaconID, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        if let n = exactBeacons.number(beacon) {
            out.append(contentsOf: exactCampaigns[Int(exactStarts[n])..<Int(exactStarts[n + 1])])
        }
        let uuid = byUUID[beacon.uuid] ?? []
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

extension Array where Element == Int32 {
    /// A campaign that lists a beacon twice is indexed under it once.
    mutating func appendUnlessLast(_ index: Int32) {
        if last != index { append(index) }
    }
}
