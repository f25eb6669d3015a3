package import BeaconRules
import CampaignLint

/// What the console shows of one app's loaded campaigns, computed once per load (start, save,
/// reload) so that a page of 10,000 campaigns only renders: each campaign with its lint
/// diagnostics (`CampaignLinter`, as `beaconrules lint` finds them) and its languages.
package struct ConsoleSnapshot: Sendable {
    /// One campaign as the list shows it.
    package struct Entry: Sendable {
        package let campaign: Campaign
        /// Lint's diagnostics for this campaign, in line order.
        package let diagnostics: [Diagnostic]
        package let errors: Int
        /// The language keys of its `onEnter` and `onExit` blocks, sorted, without repeats.
        package let languages: [String]
    }

    package let catalog: RulesCatalog
    package let entries: [Entry]
    /// The service's load this snapshot is of (`RulesService.loads`).
    package let load: Int
    private let byEID: [String: Int]

    /// Lints `catalog` as of `now` and attributes each diagnostic to the campaign it is about:
    /// the campaign of its file whose definition starts at or before its line.
    package init(catalog: RulesCatalog, load: Int, now: Timestamp) {
        self.catalog = catalog
        self.load = load
        let campaigns = catalog.campaigns.campaigns
        let found = CampaignLinter(now: now, locales: catalog.locales).lint(campaigns) + catalog.warnings
        var starts: [String: [(line: Int, index: Int)]] = [:]
        for (index, campaign) in campaigns.enumerated() { starts[campaign.origin.file, default: []].append((campaign.origin.line, index)) }
        for file in starts.keys { starts[file]!.sort { $0.line < $1.line } }
        var attributed = [[Diagnostic]](repeating: [], count: campaigns.count)
        for diagnostic in found {
            guard let inFile = starts[diagnostic.location.file] else { continue }
            let owner = inFile.last { $0.line <= diagnostic.location.line } ?? inFile[0]
            attributed[owner.index].append(diagnostic)
        }
        var byEID: [String: Int] = [:]
        var entries: [Entry] = []
        entries.reserveCapacity(campaigns.count)
        for (index, campaign) in campaigns.enumerated() {
            let diagnostics = attributed[index].sorted { ($0.location.line, $0.location.column ?? 0) < ($1.location.line, $1.location.column ?? 0) }
            entries.append(Entry(
                campaign: campaign, diagnostics: diagnostics, errors: diagnostics.count(where: { $0.severity == .error }),
                languages: Self.languages(of: campaign)))
            if byEID[campaign.eid] == nil { byEID[campaign.eid] = index }
        }
        self.entries = entries
        self.byEID = byEID
    }

    /// The first campaign with this eid, in load order.
    package func entry(eid: String) -> Entry? {
        byEID[eid].map { entries[$0] }
    }

    /// Every language key the campaign's blocks write, sorted.
    package static func languages(of campaign: Campaign) -> [String] {
        let keys = (campaign.onEnter?.languages ?? []) + (campaign.onExit?.languages ?? [])
        return Array(Set(keys.map(\.key))).sorted()
    }
}
