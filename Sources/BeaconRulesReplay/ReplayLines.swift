package import BeaconRules

/// How `replay` takes its input, with one engine or with `--jobs N`: lines outside the usual
/// layout parsed in general, and the blocks a run is cut into.
package enum ReplayLines {
    /// A block (one commit with `--state`, one write to stdout) ends at this many bytes of
    /// records or this many lines: large enough that the commit's fsync costs little per event,
    /// small enough to keep memory flat.
    package static let blockBytes = 1 << 20
    package static let blockLines = 16384

    /// Any input line not in the usual layout (the batch has tried that already); `positionalID`:
    /// it had no `id` and is known by `SOURCE:LINE` (not logged).
    package static func parse(_ line: UnsafeBufferPointer<UInt8>, source: String, number: Int) throws(EventError) -> (InputLine, positionalID: Bool) {
        var positionalID = false
        func fallbackID() -> String {
            positionalID = true
            return "\(source):\(number)"
        }
        let input = try EventParser.parseInputInGeneral(line: line, fallbackID: fallbackID())
        return (input, positionalID)
    }
}
