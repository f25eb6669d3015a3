/// How one input line ended: its records, or why it was refused (it changed nothing).
public enum LineOutcome: Sendable, Hashable {
    /// `event`: the line's id (its own, or the one made for it).
    case accepted(event: String, records: [Record])
    /// `message` is the one `replay` prints for the line.
    case rejected(line: Int, message: String)
}

/// A line that is not input, or a response the ledger cannot take: `message` says where and
/// what was expected, as `replay` says it.
public struct LineRejected: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where (`SOURCE:LINE`, column) and what was expected, as `replay` writes it.
    public var message: String
    /// A rejection with this message.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
