/// How records are written: SPEC section 3's records, or APNs payloads.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// SPEC section 3's records, one JSON object per line.
    case records
    /// APNs payloads (`--format apns`), one per line.
    case apns
}

extension RulesEngine {
    /// One line of a stream that mixes beacon events and responses (see `apply`). Blank lines are
    /// skipped (nil).
    @discardableResult
    public mutating func replayInput(
        line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String, format: OutputFormat, into writer: inout JSONWriter
    ) throws(EventError) -> UnhandledClick? {
        if EventParser.isBlank(line) { return nil }
        return try apply(EventParser.parseInput(line: line, fallbackID: fallbackID()), format: format, into: &writer)
    }
}
