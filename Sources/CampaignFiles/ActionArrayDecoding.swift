import BeaconRules
import Foundation

/// A campaign file that is one array of actions (the benchmark's shape, and any large export)
/// decoded on all cores: its elements in as many consecutive parts as there are cores, each part
/// by a decoder of its own, the campaigns and diagnostics joined in element order, which is what
/// one decoder gives (`CampaignDecoder.decode(document:)` decodes such an array action by action,
/// each on its own). The parse before it stays on one core. A folder of many files is already
/// read a file per core (`CampaignFileReader.load`); this is for the one large file, whose
/// decoding was three fifths of `replay`'s start.
enum ActionArrayDecoding {
    /// Below twice this many actions, a file is decoded on one core.
    static let smallestPart = 512

    /// The campaigns and diagnostics of `elements` decoded in `parts` parts (default: the cores),
    /// nil when there are too few actions to share out.
    static func decode(_ elements: [JSONElement], file: String, parts wanted: Int = ProcessInfo.processInfo.activeProcessorCount) -> (campaigns: [Campaign], diagnostics: [Diagnostic])? {
        let parts = min(wanted, elements.count / smallestPart)
        guard parts > 1 else { return nil }
        let results = ResultSlots<(campaigns: [Campaign], diagnostics: [Diagnostic])>(count: parts)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            var decoder = CampaignDecoder(file: file)
            var campaigns: [Campaign] = []
            for i in elements.count * part / parts..<elements.count * (part + 1) / parts {
                if let campaign = decoder.decodeAction(elements[i].value, path: "[\(i)]", line: elements[i].line, instant: false) {
                    campaigns.append(campaign)
                }
            }
            results.set(part, (campaigns, decoder.diagnostics))
        }
        var campaigns: [Campaign] = []
        var diagnostics: [Diagnostic] = []
        campaigns.reserveCapacity(elements.count)
        for part in 0..<parts {
            guard let result = results.take(part) else { continue }
            campaigns += result.campaigns
            diagnostics += result.diagnostics
        }
        return (campaigns, diagnostics)
    }
}
