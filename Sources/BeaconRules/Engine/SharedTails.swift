/// Record tails rendered ahead, once, for engines that share them read-only (`replay --jobs N`'s
/// shards): every (campaign, trigger, campaign language) a tail can be shared by (`tailShare` in
/// RulesEngine+Tails), rendered in parts (`RulesEngine.renderSharedTails`, one part per thread),
/// then joined. An engine made with them (`RulesEngine(campaigns:locales:store:sharedTails:)`)
/// finds a tail here before it renders one, so N engines render what one engine renders.
///
/// Invariant: nothing here changes after `init`: the arenas are not stored into again and the
/// table is a `let`, so any number of threads may read it at once without a lock. Each tail is
/// the very bytes the engine would render for that share key (it is rendered by the same code,
/// for an event whose locale chose that language).
public final class SharedTails: Sendable {
    /// Where the tails' bytes are, in order: an engine's arena starts with their chunks
    /// (`StableByteArena(extending:)`), so the references below hold in it.
    let arenas: [StableByteArena]
    /// The tail of each share key, its chunk numbered across `arenas`.
    let byShare: [UInt64: StableByteArena.Reference]

    /// The tails of one part of the campaigns, in an arena of their own.
    public struct Part: Sendable {
        let arena: StableByteArena
        var byShare: [UInt64: StableByteArena.Reference] = [:]
    }

    /// The parts joined, in order.
    public init(_ parts: [Part]) {
        var arenas: [StableByteArena] = []
        var byShare: [UInt64: StableByteArena.Reference] = [:]
        var chunks: UInt32 = 0
        for part in parts {
            arenas.append(part.arena)
            for (share, reference) in part.byShare {
                var rebased = reference
                rebased.chunk += chunks
                byShare[share] = rebased
            }
            chunks += UInt32(part.arena.chunkCount)
        }
        self.arenas = arenas
        self.byShare = byShare
    }

    /// Tails held.
    public var count: Int { byShare.count }
}

extension RulesEngine {
    /// The shared tails of campaigns `stripe`, `stripe + of`, `stripe + 2 * of`...: for each
    /// trigger a campaign answers, its silent tail or one tail per language of its block. Tails
    /// that depend on the device's own locale (no campaign language chosen) and tails of
    /// `TailCache.longest` bytes or more are left to the engines, as they are today.
    public static func renderSharedTails(campaigns: CampaignSet, locales: LocaleTable, stripe: Int, of stripes: Int) -> SharedTails.Part {
        var engine = RulesEngine<InMemorySuppressionStore>(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore())
        engine.ledger.isEnabled = false
        var part = SharedTails.Part(arena: StableByteArena())
        let beacon = BeaconID(uuid: ProximityUUID(high: 0, low: 0), major: 0, minor: 0)
        for index in stride(from: stripe, to: campaigns.count, by: max(stripes, 1)) {
            let mask = campaigns.rules[index].triggerMask
            for kind in [EventKind.enter, .exit] where mask & CompiledRule.bit(kind) != 0 {
                var locales: [String?] = [nil]
                if campaigns.campaigns[index].actionType != .silent {
                    locales = campaigns.campaigns[index].block(for: kind)?.languages.map(\.key) ?? []
                }
                for locale in locales {
                    let event = BeaconEvent(id: "", device: "", kind: kind, beacon: beacon, time: Timestamp(milliseconds: 0), locale: locale)
                    InPlaceEvent.with(event) { event in
                        guard let share = engine.tailShare(index: index, event: event), part.byShare[share.key] == nil else { return }
                        let tail = engine.renderTail(index: index, event: event.tailEvent).line
                        guard tail.count < TailCache.longest else { return }
                        part.byShare[share.key] = tail.withUnsafeBufferPointer { part.arena.store($0) }
                    }
                }
            }
        }
        return part
    }
}
