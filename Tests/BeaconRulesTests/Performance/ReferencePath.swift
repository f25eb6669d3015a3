@testable import BeaconRules

/// The straightforward way to replay: every campaign checked with `Campaign.verdict` for every
/// event, state in a plain dictionary, records built as values and serialized one by one. Slow on
/// purpose: it shares no index, compiled rule, state layout or cached bytes with the fast path.
struct ReferencePath {
    let campaigns: [Campaign]
    let builder: RulesEngine<InMemorySuppressionStore>
    var lastFiring: [String: Timestamp] = [:]

    init(campaigns: [Campaign], locales: LocaleTable) {
        self.campaigns = campaigns
        builder = RulesEngine(campaigns: CampaignSet(campaigns), locales: locales, store: InMemorySuppressionStore())
    }

    mutating func replay(_ text: String, source: String) -> String {
        var out = ""
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            guard let event = try? EventParser.parse(line: String(line), fallbackID: "\(source):\(offset + 1)") else { continue }
            var fired: [(Timestamp, String, NotificationRecord)] = []
            var firedIDs: Set<CampaignID> = []
            for campaign in campaigns where !firedIDs.contains(campaign.id) {
                let key = event.device + "\u{0}" + campaign.id.canonical
                guard case .fires(let date) = campaign.verdict(kind: event.kind, beacon: event.beacon, time: event.time, lastFiring: lastFiring[key]) else { continue }
                lastFiring[key] = event.time
                firedIDs.insert(campaign.id)
                fired.append((date, campaign.eid, builder.record(for: campaign, event: event, fireDate: date)))
            }
            fired.sort { ($0.0, Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) ? 0 : 1) < ($1.0, 1) }
            for (_, _, record) in fired { out += record.jsonLine + "\n" }
        }
        return out
    }
}
