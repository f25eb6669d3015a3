/// A campaign's matching rules flattened into plain values, so that the hot loop over candidates
/// copies no strings or arrays (no reference counting) and touches one small struct each.
public struct CompiledRule: Sendable {
    /// Dense index of the campaign's `CampaignID` (actions sharing an eid share it).
    public var idSlot: Int32
    /// Position of the eid as written among all eids, compared byte by byte: records of one event sort by it.
    public var rank: Int32
    /// Bit 0: enter, bit 1: exit.
    public var triggerMask: UInt8
    /// `sendOnlyOnce`, or `suppressionTime: 0`.
    public var onceOnly: Bool
    /// Type 4: a silent record.
    public var isSilent: Bool
    /// Suppression interval in ms, 0 for none.
    public var interval: Int64
    public var delay: Int64
    /// `Int64.min` when absent.
    public var deliverAt: Int64
    /// Where this rule's timeframes start in `CampaignSet.frameBounds` (start, end pairs) and how many.
    public var framesStart: Int32
    public var framesCount: Int32
    /// `dwell` in ms, 0 for none: the enter side answers only dwell events of exactly this length.
    public var dwell: Int64 = 0

    static func bit(_ kind: EventKind) -> UInt8 { kind == .enter ? 1 : 2 }
}

extension CampaignSet {
    /// The fire date (ms) if the rule fires at `time` given the device's last firing, else nil.
    /// Must agree with `Campaign.verdictAfterMatch`; the reference-path test holds them together.
    @inline(__always)
    func fireDate(_ rule: CompiledRule, time: Int64, last: Int64?) -> Int64? {
        if rule.framesCount > 0 {
            var live = false
            frameBounds.withUnsafeBufferPointer { bounds in
                var i = Int(rule.framesStart) * 2
                let end = i + Int(rule.framesCount) * 2
                while i < end {
                    if bounds[i] <= time && time < bounds[i + 1] { live = true; return }
                    i += 2
                }
            }
            if !live { return nil }
        }
        if let last {
            if rule.onceOnly { return nil }
            if rule.interval > 0 && time < last &+ rule.interval { return nil }
        }
        if rule.delay > 0 { return time &+ rule.delay }
        if rule.deliverAt != Int64.min {
            return time > rule.deliverAt ? nil : rule.deliverAt
        }
        return time
    }

    static func compile(_ campaigns: [Campaign]) -> (rules: [CompiledRule], bounds: [Int64], ids: [CampaignID]) {
        var slots = [CampaignID: Int32](minimumCapacity: campaigns.count)
        var ids: [CampaignID] = []
        var bounds: [Int64] = []
        // The eids alone: a comparator that reads `campaigns[i].eid` copies a whole `Campaign` per call.
        let eids = campaigns.map(\.eid)
        // For ASCII (all eids seen in practice) `String <` is byte order, and much faster than
        // walking two `UTF8View`s.
        let ascii = eids.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
        let order = ascii
            ? campaigns.indices.sorted { eids[$0] < eids[$1] }
            : campaigns.indices.sorted { eids[$0].utf8.lexicographicallyPrecedes(eids[$1].utf8) }
        var rank = [Int32](repeating: 0, count: campaigns.count)
        for (position, index) in order.enumerated() {
            // Equal eids get equal ranks so that ordering ties fall back to load order.
            rank[index] = position > 0 && eids[order[position - 1]] == eids[index] ? rank[order[position - 1]] : Int32(position)
        }
        var rules: [CompiledRule] = []
        rules.reserveCapacity(campaigns.count)
        for i in campaigns.indices {
            let slot: Int32
            if let existing = slots[campaigns[i].id] { slot = existing } else {
                slot = Int32(ids.count)
                slots[campaigns[i].id] = slot
                ids.append(campaigns[i].id)
            }
            let framesStart = Int32(bounds.count / 2)
            for frame in campaigns[i].timeframes {
                bounds.append(frame.start?.milliseconds ?? Int64.min)
                bounds.append(frame.end?.milliseconds ?? Int64.max)
            }
            var mask: UInt8 = 0
            if campaigns[i].isInstant || campaigns[i].trigger.matches(.enter) { mask |= 1 }
            if campaigns[i].isInstant || campaigns[i].trigger.matches(.exit) { mask |= 2 }
            var interval: Int64 = 0
            if case .interval(let ms) = campaigns[i].suppression { interval = ms }
            rules.append(CompiledRule(
                idSlot: slot, rank: rank[i], triggerMask: mask,
                onceOnly: campaigns[i].sendOnlyOnce || campaigns[i].suppression == .once,
                isSilent: campaigns[i].actionType == .silent,
                interval: interval, delay: campaigns[i].delayMilliseconds,
                deliverAt: campaigns[i].deliverAt?.milliseconds ?? Int64.min,
                framesStart: framesStart, framesCount: Int32(campaigns[i].timeframes.count),
                dwell: campaigns[i].dwellMilliseconds))
        }
        return (rules, bounds, ids)
    }
}
