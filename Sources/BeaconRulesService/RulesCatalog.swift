public import BeaconRules
import BeaconRulesXML
import CampaignFiles
import Foundation

/// Campaigns and locales as loaded, with every warning found on the way.
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

    /// Reads `campaigns` and `locales` with the CLI's readers. Throws `CampaignLoadError` listing
    /// every error (file, line, column) when any source does not load; nothing is half-loaded.
    public init(campaigns: [CampaignSource], locales: LocaleSource) throws(CampaignLoadError) {
        var found: [Campaign] = []
        var diagnostics: [Diagnostic] = []
        var paths: [String] = []
        func add(_ read: (campaigns: [Campaign], diagnostics: [Diagnostic])) {
            found += read.campaigns
            diagnostics += read.diagnostics
        }
        for source in campaigns {
            switch source {
            case .path(let path): paths.append(path)
            case .json(let text, let name): add(CampaignFileReader.readJSON(path: name, bytes: Array(text.utf8)))
            case .xml(let text, let name): add(XMLCampaignReader.read(path: name, bytes: Array(text.utf8)))
            case .data(let data, let name):
                add(name.lowercased().hasSuffix(".xml")
                    ? XMLCampaignReader.read(path: name, bytes: [UInt8](data))
                    : CampaignFileReader.readJSON(path: name, bytes: [UInt8](data)))
            }
        }
        if !paths.isEmpty {
            let catalog = CampaignFileReader(extraFormats: ["xml": XMLCampaignReader.read]).load(paths: paths)
            found = catalog.campaigns + found
            diagnostics = catalog.diagnostics + diagnostics
        }
        switch locales {
        case .folder(let directory):
            let (table, localeDiagnostics) = LocaleFiles.load(directory: directory)
            self.locales = table
            diagnostics += localeDiagnostics
        case .table(let table): self.locales = table
        case .none: self.locales = LocaleTable()
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else { throw CampaignLoadError(diagnostics: errors) }
        self.campaigns = CampaignSet(found)
        self.warnings = diagnostics.filter { $0.severity == .warning }
    }
}
