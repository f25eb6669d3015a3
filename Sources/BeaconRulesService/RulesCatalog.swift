public import BeaconRules
import BeaconRulesXML
import CampaignFiles
import Foundation

/// The one loader of campaigns and locales: files and folders as `beaconrules --campaigns` and
/// `--locales` read them, or documents in memory. The command line, `serve`'s and `http`'s reloads
/// and `RulesService` all load through it.
extension RulesCatalog {
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
            let read = CampaignFileReader(extraFormats: Self.fileFormats).load(paths: paths)
            // Without documents in memory the files' array is taken as it is: copying 100,000
            // campaigns costs as much as a part of loading them.
            found = found.isEmpty ? read.campaigns : read.campaigns + found
            diagnostics = read.diagnostics + diagnostics
        }
        var table = LocaleTable()
        switch locales {
        case .folder(let directory):
            let (loaded, localeDiagnostics) = LocaleFiles.load(directory: directory)
            table = loaded
            diagnostics += localeDiagnostics
        case .table(let given): table = given
        case .none: break
        }
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else { throw CampaignLoadError(diagnostics: errors) }
        self.init(campaigns: CampaignSet(found), locales: table, warnings: diagnostics.filter { $0.severity == .warning })
    }

    /// Campaign file formats beyond JSON, by file extension: XML exports (SPEC section 6).
    static let fileFormats: [String: CampaignFormatReader] = ["xml": XMLCampaignReader.read]
}
