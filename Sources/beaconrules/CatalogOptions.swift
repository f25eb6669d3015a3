import ArgumentParser
import BeaconRules
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
        let (campaigns, locales, diagnostics) = read()
        let errors = diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            for error in errors { StandardError.write("beaconrules: \(error)\n") }
            throw ExitCode(2)
        }
        for warning in diagnostics where warning.severity == .warning { warn(warning) }
        return (campaigns, locales)
    }

    /// Campaigns and locales with every diagnostic; the caller decides what an error means
    /// (exit 2 at start, keep the old set on a reload).
    func read() -> (CampaignSet, LocaleTable, [Diagnostic]) {
        let catalog = CampaignFileReader(extraFormats: CampaignFormats.extra).load(paths: paths)
        let (locales, localeDiagnostics) = LocaleFiles.load(directory: localesDirectory)
        return (CampaignSet(catalog.campaigns), locales, catalog.diagnostics + localeDiagnostics)
    }
}

/// Campaign formats beyond JSON, by file extension.
enum CampaignFormats {
    static let extra: [String: CampaignFormatReader] = ["xml": XMLCampaignReader.read]
}
