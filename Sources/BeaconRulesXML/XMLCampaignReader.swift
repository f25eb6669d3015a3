package import BeaconRules

/// Reads the XML export form of campaigns (SPEC section 6) into the engine's campaigns.
///
/// Each `<campaign>` becomes the Sensorberg action object it stands for and goes through the same
/// `CampaignDecoder` as JSON, so one campaign behaves the same in either form.
package enum XMLCampaignReader {
    /// The action objects of an export, or every problem found (file, line, column).
    package static func convert(path: String, bytes: [UInt8], limits: XMLLimits = .standard) -> (actions: [ConvertedAction], problems: [XMLCampaignError]) {
        let root: ParsedElement
        let warnings: [XMLCampaignError]
        do {
            (root, warnings) = try LibXML2Parser.parse(bytes, file: path, limits: limits)
        } catch {
            return ([], [error])
        }
        var converter = XMLCampaignConverter(file: path)
        let actions = converter.convert(root: root)
        return (actions, warnings + converter.problems)
    }

    /// The campaigns of an export with every diagnostic; campaigns with errors are left out.
    /// Fits `CampaignFileReader(extraFormats: ["xml": XMLCampaignReader.read])`.
    @Sendable package static func read(path: String, bytes: [UInt8]) -> (campaigns: [Campaign], diagnostics: [Diagnostic]) {
        read(path: path, bytes: bytes, limits: .standard)
    }

    package static func read(path: String, bytes: [UInt8], limits: XMLLimits) -> (campaigns: [Campaign], diagnostics: [Diagnostic]) {
        let (actions, problems) = convert(path: path, bytes: bytes, limits: limits)
        var decoder = CampaignDecoder(file: path)
        var campaigns: [Campaign] = []
        for action in actions {
            if let campaign = decoder.decodeAction(action.action, path: "", line: action.line, instant: action.instant) {
                campaigns.append(campaign)
            }
        }
        let diagnostics = (problems.map(\.diagnostic) + decoder.diagnostics).sorted {
            ($0.location.line, $0.location.column ?? 0) < ($1.location.line, $1.location.column ?? 0)
        }
        return (campaigns, diagnostics)
    }
}
