/// A campaign's matching rules flattened into plain values, so that the hot loop over candidates
/// copies no strings or arrays (no reference counting) and touches one small struct each.
struct CompiledRule: Sendable {
    /// Dense index of the campaign's `CampaignID` (actions sharing an eid share it).
    var idSlot: Int32
    /// Position of the eid as written among all eids, compared byte by byte: records of one event sort by it.
    var rank: Int32
    /// Bit 0: enter, bit 1: exit.
    var triggerMask: UInt8
    /// `sendOnlyOnce`, or `suppressionTime: 0`.
    var onceOnly: Bool
    /// Type 4: a silent record.
    var isSilent: Bool
    /// Suppression interval in ms, 0 for none.
    var interval: Int64
    var delay: Int64
    /// `Int64.min` when absent.
    var deliverAt: Int64
    /// Where this rule's timeframes start in `CampaignSet.frameBounds` (start, end pairs) and how many.
    var framesStart: Int32
    var framesCount: Int32
    /// `dwell` in ms, 0 for none: the enter side answers only dwell events of exactly this length.
    var dwell: Int64 = 0

    static func bit(_ kind: EventKind) -> UInt8 { kind == .enter ? 1 : 2 }
}

extension CampaignSet {
    static func compile(_ campaigns: [Campaign]) -> (rules: [CompiledRule], bounds: [Int64], ids: [CampaignID]) {
        // Campaign ids numbered in first-seen order. ASCII ids (all seen in practice) go through a
        // multiply hash of their bytes, much cheaper than SipHash; other text compares equal as Swift
        // compares it (canonical equivalence), which only `Dictionary` hashes for.
        let ascii = campaigns.indices.allSatisfy { i in var id = campaigns[i].id.canonical; return id.withUTF8(isASCII) }
        var slots = NumberingTable<String>(minimumCapacity: ascii ? campaigns.count : 0)
        var slotsByID: [CampaignID: Int32] = [:]
        var ids: [CampaignID] = []
        ids.reserveCapacity(campaigns.count)
        var bounds: [Int64] = []
        let rank = ranks(of: campaigns.indices.map { campaigns[$0].eid })
        var rules: [CompiledRule] = []
        rules.reserveCapacity(campaigns.count)
        for i in campaigns.indices {
            let slot: Int32
            if ascii {
                if let existing = slots.number(campaigns[i].id.canonical) { slot = Int32(existing) } else {
                    slot = Int32(slots.add(campaigns[i].id.canonical))
                    ids.append(campaigns[i].id)
                }
            } else if let existing = slotsByID[campaigns[i].id] { slot = existing } else {
                slot = Int32(ids.count)
                slotsByID[campaigns[i].id] = slot
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

    /// Each eid's position among all eids in byte order of their UTF-8 (what `String <` gives for
    /// ASCII), equal eids sharing the first one's, so that ordering ties fall back to load order.
    static func ranks(of eids: [String]) -> [Int32] {
        // Sorted on the first eight bytes read as one big-endian number, which orders them as the
        // bytes do; the whole eids are compared only on a tie.
        var keyed: [(prefix: UInt64, index: Int32)] = []
        keyed.reserveCapacity(eids.count)
        for i in eids.indices {
            var eid = eids[i]
            let prefix = eid.withUTF8 { bytes in
                var key: UInt64 = 0
                for k in 0..<8 { key = key << 8 | UInt64(k < bytes.count ? bytes[k] : 0) }
                return key
            }
            keyed.append((prefix, Int32(i)))
        }
        keyed.sort { a, b in
            a.prefix != b.prefix ? a.prefix < b.prefix : eids[Int(a.index)].utf8.lexicographicallyPrecedes(eids[Int(b.index)].utf8)
        }
        var rank = [Int32](repeating: 0, count: eids.count)
        for position in keyed.indices {
            let index = Int(keyed[position].index)
            let previous = position > 0 ? Int(keyed[position - 1].index) : -1
            rank[index] = previous >= 0 && eids[previous] == eids[index] ? rank[previous] : Int32(position)
        }
        return rank
    }
}
