import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import BeaconRulesService
import BeaconRulesXML
import CampaignFiles

/// `--campaigns` and `--locales`, shared by every command that loads campaigns.
struct CatalogOptions: ParsableArguments {
    @Option(name: .customLong("campaigns"), help: ArgumentHelp("A campaign file, or a folder read recursively in file-name order (repeatable).", valueName: "path"))
    var campaignPaths: [String] = []

    @Option(name: .customLong("locales"), help: ArgumentHelp("The folder of per-language default strings.", valueName: "dir"))
    var localesDirectory: String = "Locales"

    var paths: [String] { campaignPaths.isEmpty ? ["Campaigns"] : campaignPaths }

    /// Campaigns and locales, or exit 2 with every error (file and line) on stderr.
    /// Warnings go to `warn` so each command can show them in its own form.
    func load(warn: (Diagnostic) -> Void) throws -> (CampaignSet, LocaleTable) {
        switch read() {
        case .success(let catalog):
            for warning in catalog.warnings { warn(warning) }
            return (catalog.campaigns, catalog.locales)
        case .failure(let error):
            for problem in error.diagnostics where problem.severity == .error { StandardError.write("beaconrules: \(problem)\n") }
            throw ExitCode(2)
        }
    }

    /// The files through the one loader (`RulesCatalog`): the caller decides what an error means
    /// (exit 2 at start, keep the old set on a reload).
    func read() -> Result<RulesCatalog, CampaignLoadError> {
        Result { () throws(CampaignLoadError) in try RulesCatalog(campaigns: paths.map(CampaignSource.path), locales: .folder(localesDirectory)) }
    }
}

/// Campaign formats beyond JSON, by file extension.
enum CampaignFormats {
    static let extra: [String: CampaignFormatReader] = ["xml": XMLCampaignReader.read]
}
