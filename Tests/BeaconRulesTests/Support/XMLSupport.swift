@testable import BeaconRules
import BeaconRulesXML
import CampaignFiles
import Foundation

/// Reads inline XML exports and campaign folders with the XML format plugged in, as the CLI does.
enum XMLSupport {
    static let reader = CampaignFileReader(extraFormats: ["xml": XMLCampaignReader.read])

    /// Campaigns and diagnostics of an inline export.
    static func read(_ xml: String, file: String = "inline.xml", limits: XMLLimits = .standard) -> (campaigns: [Campaign], diagnostics: [Diagnostic]) {
        XMLCampaignReader.read(path: file, bytes: Array(xml.utf8), limits: limits)
    }

    /// One `<campaign>` inside the usual root, for short tests.
    static func export(_ campaigns: String) -> String {
        "<campaigns xmlns=\"urn:beaconrules:campaigns:1\">\n\(campaigns)\n</campaigns>\n"
    }

    static func errors(_ xml: String) -> [Diagnostic] {
        read(xml).diagnostics.filter { $0.severity == .error }
    }

    /// An engine over files and folders of any format; fails on any load error.
    static func engine(paths: [String]) throws -> RulesEngine<InMemorySuppressionStore> {
        let catalog = reader.load(paths: paths)
        if !catalog.errors.isEmpty { throw CampaignLoadError(diagnostics: catalog.errors) }
        return RulesEngine(campaigns: CampaignSet(catalog.campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
    }

    /// The records a trace fixture gives against campaigns at `paths`, as JSON lines; events without
    /// an id are named after the fixture's path from the package root, as the golden files were.
    static func records(trace name: String, paths: [String]) throws -> String {
        var engine = try engine(paths: paths)
        return Harness.replay(Paths.read(Paths.fixture(name)), source: "Tests/Fixtures/" + name, engine: &engine).records
    }

    static let pid1 = "b9407f30f5f8466eaff925556b57fe6d0010000001"
}
