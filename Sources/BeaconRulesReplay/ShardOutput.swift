import BeaconRules

/// What one shard of `replay --jobs N` made of its part of a block of lines: the records of each
/// line, where each line's end lies in `records`, and the JSON errors and warnings for stderr.
/// The writer takes the lines of all shards back in input order (`OrderedRecordWriter`).
struct ShardBlock: Sendable {
    /// The lines' records, one after the other (tails by reference into the shard's engine).
    var records: JSONWriter
    /// Per line of the block, in order: where its records end.
    var ends: [LineEnd] = []
    /// Lines for stderr, each with the index of the line (in `ends`) that wrote it, in order.
    var messages: [(line: Int, text: String)] = []
    var rejectedLines = 0

    /// The end of a line's records: in `records.bytes`, and in `records.references`.
    struct LineEnd: Sendable {
        var byte: Int
        var reference: Int
    }
}

/// Where a shard's pipeline answers: like `ReplayOutput`, but nothing goes out from here. Each
/// line's end and messages are noted in the block, for the writer to put back in input order.
/// Every line gets exactly one of `accepted`, `answered` and `rejected` (a warning comes before).
struct ShardOutput: LineOutput {
    var records: JSONWriter
    var ends: [ShardBlock.LineEnd] = []
    var messages: [(line: Int, text: String)] = []
    var rejectedLines = 0
    var source = "stdin"

    init() {
        records = Self.writer()
    }

    /// A writer for a block: tails collected by reference (written out with `writev`).
    static func writer() -> JSONWriter {
        var records = JSONWriter(capacity: 1 << 20)
        records.collectsReferences = true
        return records
    }

    /// The next block starts in `records` (a spare writer, emptied).
    mutating func start(source: String, records spare: JSONWriter) {
        self.source = source
        records = spare
        records.removeAll()
        ends.removeAll(keepingCapacity: true)
        messages.removeAll()
        rejectedLines = 0
    }

    /// The block as it stands, for the writer (`records` left empty until the next `start`).
    mutating func take() -> ShardBlock {
        let block = ShardBlock(records: records, ends: ends, messages: messages, rejectedLines: rejectedLines)
        records = JSONWriter()
        // The block keeps the arrays: new ones, as large, for the next block.
        ends = []
        ends.reserveCapacity(block.ends.count)
        messages = []
        return block
    }

    private mutating func endLine() {
        ends.append(ShardBlock.LineEnd(byte: records.bytes.count, reference: records.references.count))
    }

    mutating func accepted(event id: @autoclosure () -> String) { endLine() }

    /// `replay --jobs` keeps no answer log: never called, but kept in order all the same.
    mutating func answered(event id: String, records answer: [UInt8]) {
        records.bytes.append(contentsOf: answer)
        endLine()
    }

    mutating func rejected(line: Int, message: String) {
        rejectedLines += 1
        messages.append((ends.count, ErrorLine.json(kind: "error", source: source, line: line, message: message)))
        endLine()
    }

    mutating func unhandled(_ click: UnhandledClick, line: Int) {
        messages.append((ends.count, ReplayOutput.unhandledWarning(click, source: source, line: line)))
    }

    /// `replay` reads no outbox requests: never called.
    mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64) {}
}
