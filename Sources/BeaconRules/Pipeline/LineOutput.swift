/// Where a `LinePipeline`'s answers go: each line's records, written into `records`, then one
/// call saying how the line ended. `replay` writes the records out as they are and the errors
/// to stderr; the server wraps each line's records in its reply.
public protocol LineOutput {
    /// Where the pipeline writes a line's records (and at the end of input, what is still
    /// pending). An output that collects references (`JSONWriter.collectsReferences`) must empty
    /// it after each line, so that a line's records are the whole writer when its log keeps them.
    var records: JSONWriter { get set }
    /// The line was taken: its records are in `records`, after what was there before it.
    /// `id` is evaluated only when the output needs it (it may build a `String`).
    mutating func accepted(event id: @autoclosure () -> String)
    /// The line's id was answered before: the same records again (`records` untouched).
    mutating func answered(event id: String, records: [UInt8])
    /// The line was refused and changed nothing.
    mutating func rejected(line: Int, message: String)
    /// A click whose action type has no handler (the line is still taken).
    mutating func unhandled(_ click: UnhandledClick, line: Int)
    /// The answer to an outbox request: records that fired on the clock after `after`.
    mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64)
}
