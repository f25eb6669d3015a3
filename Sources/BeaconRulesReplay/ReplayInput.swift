package import BeaconRules

/// What replay's sources hold: event lines (JSON, SPEC section 2) or recorded scan files
/// (`--input-format starksm64`, each object a scanner's sighting; gzip or plain).
package enum ReplayInput: Sendable {
    case eventLines
    case recordedScans
}

/// One item of a recorded scan file, in file order: a sighting with the line its object starts
/// on, or the reason an object was skipped.
package enum RecordedScanItem {
    case sighting(Sighting, line: Int)
    case rejected(String, line: Int)

    /// The items of the recorded scan file `source` (`-`: stdin), the scanner as the device.
    /// Listed first and then applied in a plain loop: a closure applying them would capture the
    /// replay loop's state, and every access to it would then be checked for exclusivity at run
    /// time.
    package static func items(of source: String, name: String) throws(ReadError) -> [RecordedScanItem] {
        let bytes = try CompressedFile.read(source)
        var items: [RecordedScanItem] = []
        bytes.withUnsafeBufferPointer { buffer in
            RecordedScans.forEachSighting(in: buffer, source: name, { sighting, line in
                items.append(.sighting(sighting, line: line))
            }, rejected: { error, line in items.append(.rejected(error.description, line: line)) })
        }
        return items
    }
}
