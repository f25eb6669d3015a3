/// How one input line ended: its records, or why it was refused (it changed nothing).
public enum LineOutcome: Sendable, Hashable {
    /// `event`: the line's id (its own, or the one made for it).
    case accepted(event: String, records: [Record])
    /// The line was refused: where and why, as `replay` says it.
    case rejected(LineRejected)
}

/// A line that is not input, or a response the ledger cannot take: `message` says where and
/// what was expected, as `replay` says it. The one shape of a refusal: a `LineOutcome` of
/// `process(lines:source:linesWithoutID:)` holds it, and the calls of one event or response throw it.
public struct LineRejected: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line's 1-based number in the call (1 for a call of one event or response).
    public var line: Int
    /// Where (`SOURCE:LINE`, column) and what was expected, as `replay` writes it.
    public var message: String
    /// A rejection of line `line` with this message.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
    /// The message.
    public var description: String { message }
}
