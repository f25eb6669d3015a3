package import BeaconRules

/// The records one campaign makes for devices of each language, rendered by the engine itself
/// (a `RulesEngine` of this one campaign, no state): the console never re-implements a rule.
package struct CampaignPreviews {
    package let campaign: Campaign
    package let locales: LocaleTable
    private let engine: RulesEngine<InMemorySuppressionStore>

    package init(campaign: Campaign, locales: LocaleTable) {
        self.campaign = campaign
        self.locales = locales
        engine = RulesEngine(campaigns: CampaignSet([campaign]), locales: locales, store: InMemorySuppressionStore())
    }

    /// The triggers the campaign answers.
    package var kinds: [EventKind] {
        [EventKind.enter, .exit].filter { campaign.trigger.matches($0) }
    }

    /// One phone: `own` when the campaign writes the language itself.
    package struct Phone {
        package let preview: PhonePreview
        package let own: Bool
    }

    /// A phone per language: the campaign's own (in its order), then every `Locales/` language.
    package func phones(kind: EventKind) -> [Phone] {
        let own = campaign.block(for: kind)?.languages.map(\.key) ?? []
        let ownTags = Set(own.map(LanguageTag.normalize))
        let fromLocales = locales.entries.values.map(\.tag).filter { !ownTags.contains(LanguageTag.normalize($0)) }.sorted()
        var phones = own.map { Phone(preview: preview(kind: kind, device: $0, caption: $0), own: true) }
        if own.isEmpty && campaign.actionType != .silent {
            phones.append(Phone(preview: preview(kind: kind, device: nil, caption: "no language block: content's strings"), own: true))
        }
        if campaign.actionType != .silent {
            phones += fromLocales.map { tag in
                let record = preview(kind: kind, device: tag, caption: tag).record
                return Phone(preview: PhonePreview(record: record, caption: tag + " → " + (record.language ?? "content")), own: false)
            }
        }
        return phones
    }

    /// A device of language `device` seen at the campaign's first beacon.
    package func preview(kind: EventKind, device: String?, caption: String) -> PhonePreview {
        let event = BeaconEvent(id: "preview", device: "preview", kind: kind, beacon: beacon, time: Timestamp(milliseconds: 0), locale: device)
        return PhonePreview(record: engine.record(for: campaign, event: event, fireDate: event.time), caption: caption)
    }

    /// The record `event` fires at `fireDate`, as `/try` shows it.
    package func preview(event: BeaconEvent, fireDate: Timestamp) -> PhonePreview {
        let record = engine.record(for: campaign, event: event, fireDate: fireDate)
        return PhonePreview(record: record, caption: "\(campaign.eid) · \(record.language ?? "no language block")")
    }

    /// How a device language lands on a block language.
    package struct Chain {
        /// The tags tried, in order, up to the one that matched.
        package let tried: [String]
        /// The block language chosen, if a tag matched one.
        package let hit: String?
        package let reason: String
        package let preview: PhonePreview
    }

    /// The fallback chain of `device` (SPEC section 2): its tag, each shorter prefix, the
    /// `fallback` of `Locales/`, `en`; then the block's first language in sorted order.
    package func chain(kind: EventKind, device: String) -> Chain {
        let record = preview(kind: kind, device: device, caption: device).record
        let chain = locales.preferenceChain(for: device)
        let languages = campaign.block(for: kind)?.languages ?? []
        guard !languages.isEmpty else {
            return Chain(tried: chain, hit: nil, reason: "The campaign has no on\(kind == .enter ? "Enter" : "Exit") block: the content's subject and body, buttons from Locales/.", preview: PhonePreview(record: record, caption: device))
        }
        let caption = device + " → " + (record.language ?? "none")
        if languages.count == 1 {
            return Chain(tried: [], hit: languages[0].key, reason: "The block has one language, \(languages[0].key): every device gets it.", preview: PhonePreview(record: record, caption: caption))
        }
        if let index = chain.firstIndex(where: { tag in languages.contains { $0.tag == tag } }) {
            let how = index == 0 ? "its own tag" : chain[index] == "en" && !LanguageTag.prefixes(of: LanguageTag.normalize(device)).contains("en") ? "the last resort, en" : "the chain"
            return Chain(tried: Array(chain[...index]), hit: chain[index], reason: "The block has \(record.language ?? chain[index]), found through \(how); missing strings come from Locales/\(record.language ?? chain[index]).json, then en.", preview: PhonePreview(record: record, caption: caption))
        }
        return Chain(tried: chain, hit: nil, reason: "No tag of the chain is in the block: the first language in sorted order, \(record.language ?? "none").", preview: PhonePreview(record: record, caption: caption))
    }

    /// The first beacon the campaign lists (a stand-in when it lists only UUIDs or geofences).
    private var beacon: BeaconID {
        for pattern in campaign.beacons {
            switch pattern {
            case .exact(let id): return id
            case .proximityUUID(let uuid): return BeaconID(uuid: uuid, major: 1, minor: 1)
            case .geofence: continue
            }
        }
        return BeaconID(pid: String(repeating: "0", count: 42))!
    }
}
