package import BeaconRules

/// Where `replay`'s pipeline answers: records as they are (written to stdout a block at a
/// time), each rejected line as a JSON error on stderr naming its source and line.
package struct ReplayOutput: LineOutput {
    package var records: JSONWriter
    /// The source being read, as errors name it.
    package var source = "stdin"
    package var rejectedLines = 0
    /// Cleared before anything is written to stderr.
    package var progress = ProgressBar(totalBytes: nil)
    /// On: lines are applied and nothing is written or counted (lines another run has written,
    /// see `Replay.replayInMemory`); the records are dropped when the block is flushed.
    package var muted = false
    /// Non-nil: errors and warnings are kept here, not written, until the driver writes them (a
    /// database's transaction committed: an attempt run again must not write them twice).
    package var held: [String]?

    /// `collectsReferences`: record tails stay in the engine's cache and are written from there
    /// (only where nothing reads the records back before they are written out).
    package init(collectsReferences: Bool) {
        records = JSONWriter(capacity: ReplayLines.blockBytes + (1 << 16))
        records.collectsReferences = collectsReferences
    }

    /// The records are already in `records`, where they go out.
    package mutating func accepted(event id: @autoclosure () -> String) {}

    package mutating func answered(event id: String, records answer: [UInt8]) {
        records.bytes.append(contentsOf: answer)
    }

    package mutating func rejected(line: Int, message: String) {
        if muted { return }
        rejectedLines += 1
        say(ErrorLine.json(kind: "error", source: source, line: line, message: message))
    }

    /// Writes `message` to stderr, or keeps it (`held`).
    mutating func say(_ message: String) {
        if held != nil {
            held?.append(message)
            return
        }
        progress.clear()
        StandardError.write(message)
    }

    package mutating func unhandled(_ click: UnhandledClick, line: Int) {
        if muted { return }
        say(Self.unhandledWarning(click, source: source, line: line))
    }

    /// The warning for a click whose action type has no handler.
    package static func unhandledWarning(_ click: UnhandledClick, source: String, line: Int) -> String {
        ErrorLine.json(kind: "warning", source: source, line: line, message: "click on \"\(click.actionId)\" of record \"\(click.notification)\" runs action type \"\(click.kind)\", which has no handler; counted as unhandled (see `beaconrules report`)")
    }

    /// `replay` reads no outbox requests (nothing fires on a wall clock): never called.
    package mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64) {}
}
