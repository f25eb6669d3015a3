import BeaconRules
import BeaconRulesReplay

/// `replay --input-format starksm64`: recorded scan files, read whole and listed before they are applied.
extension Replay {
    /// What a recorded scan file holds, in file order: each sighting, with the line its object
    /// starts on, or the reason an object was skipped.
    enum RecordedScanItem {
        case sighting(Sighting, line: Int)
        case rejected(String, line: Int)
    }

    /// The items of a recorded scan file (`--input-format starksm64`, gzip or plain), the scanner
    /// as the device; nil (with `outcome.failure` set) when the file cannot be read. Listed
    /// first and then applied in a plain loop: a closure applying them would capture the replay
    /// loop's state, and every access to it would then be checked for exclusivity at run time.
    func recordedScan(_ source: String, name: String, outcome: inout Outcome) -> [RecordedScanItem]? {
        let bytes: [UInt8]
        do { bytes = try CompressedFile.read(source) } catch {
            outcome.failure = error.description
            return nil
        }
        var items: [RecordedScanItem] = []
        bytes.withUnsafeBufferPointer { buffer in
            RecordedScans.forEachSighting(in: buffer, source: name, { sighting, line in
                items.append(.sighting(sighting, line: line))
            }, rejected: { error, line in items.append(.rejected(error.description, line: line)) })
        }
        return items
    }
}
