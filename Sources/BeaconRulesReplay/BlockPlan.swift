/// How a block of input lines was shared out, in input order: the shard of each line (or
/// `readerLine`: a line the reader refused itself, with its message in `messages`), and where
/// the reader stood, for the progress bar.
struct BlockPlan: Sendable {
    var owners: [UInt8] = []
    /// The reader's own error lines, in order.
    var messages: [String] = []
    /// Bit s: shard s has a block of these lines.
    var shards: UInt64 = 0
    /// A new source starts with this block: its size when known (for the progress bar).
    var newSource: Int?? = nil
    var bytesRead = 0
    /// The mapped file the block's lines are in, and where the block ends in it: the writer marks
    /// it applied up to there once written (`MappedInput.applied(upTo:)`).
    var mapping: MappedInput?
    var mappedEnd = 0
    var lineNumber = 0

    static let readerLine: UInt8 = .max
}
