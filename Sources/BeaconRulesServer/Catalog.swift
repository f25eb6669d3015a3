package import BeaconRules

/// The campaigns and locales the server answers with, as loaded from files.
package struct Catalog: Sendable {
    package var campaigns: CampaignSet
    package var locales: LocaleTable
    /// Warnings found while loading, for the reload log line.
    package var warnings: [String]

    package init(campaigns: CampaignSet, locales: LocaleTable, warnings: [String] = []) {
        self.campaigns = campaigns
        self.locales = locales
        self.warnings = warnings
    }
}

/// Campaign or locale files that do not load: every problem, with its file and line.
package struct CatalogError: Error, Sendable, CustomStringConvertible {
    package var problems: [String]

    package init(problems: [String]) {
        self.problems = problems
    }

    package var description: String { problems.joined(separator: "; ") }
}
