public import BeaconRules

/// The campaigns and locales the server answers with, as loaded from files.
public struct Catalog: Sendable {
    public var campaigns: CampaignSet
    public var locales: LocaleTable
    /// Warnings found while loading, for the reload log line.
    public var warnings: [String]

    public init(campaigns: CampaignSet, locales: LocaleTable, warnings: [String] = []) {
        self.campaigns = campaigns
        self.locales = locales
        self.warnings = warnings
    }
}

/// Campaign or locale files that do not load: every problem, with its file and line.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String { problems.joined(separator: "; ") }
}
