/// Campaigns and locales as loaded, with every warning found on the way: what an engine answers
/// with. `serve`, `http`, `RulesService` and the command line all hold their campaigns as one of
/// these; `RulesCatalog(campaigns:locales:)` in `BeaconRulesService` is the one loader of files.
public struct RulesCatalog: Sendable {
    /// The campaigns loaded, in load order.
    public var campaigns: CampaignSet
    /// The `Locales/` tables loaded.
    public var locales: LocaleTable
    /// Warnings (errors stop the load), as the CLI prints them: `FILE:LINE:COLUMN: warning: ...`.
    public var warnings: [Diagnostic]

    /// A catalog already loaded; `warnings` are logged by the service that takes it.
    public init(campaigns: CampaignSet, locales: LocaleTable, warnings: [Diagnostic] = []) {
        self.campaigns = campaigns
        self.locales = locales
        self.warnings = warnings
    }
}
