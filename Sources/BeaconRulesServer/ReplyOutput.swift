import BeaconRules
import Logging

/// Where the server's pipeline answers: one reply line per request line (SPEC section 5),
/// gathered in `replies` for the connection that sent them.
struct ReplyOutput: LineOutput {
    /// One line's records at a time (emptied after each line).
    var records: JSONWriter
    /// The replies of the lines applied since the owner last took them.
    var replies = JSONWriter(capacity: 1 << 16)
    /// Records and rejections since the owner last took them (for the metrics).
    var counts = BatchCounts()
    let logger: Logger

    /// `collectsReferences`: the log keeps references, so record tails of 32 bytes and more are
    /// not copied into it (a reference costs it 16 bytes); the reply copies each tail once.
    init(collectsReferences: Bool, logger: Logger) {
        records = JSONWriter(capacity: 1 << 12)
        records.shortestReference = 32
        records.collectsReferences = collectsReferences
        self.logger = logger
    }

    mutating func accepted(event id: @autoclosure () -> String) {
        let count = Reply.accepted(event: id(), written: records, into: &replies)
        counts.records &+= count.records
        counts.silent &+= count.silent
        records.removeAll()
    }

    mutating func answered(event id: String, records answer: [UInt8]) {
        let count = Reply.accepted(event: id, records: answer, into: &replies)
        counts.records &+= count.records
        counts.silent &+= count.silent
    }

    mutating func rejected(line: Int, message: String) {
        records.removeAll()
        counts.rejected += 1
        Reply.rejected(line: line, message: message, into: &replies)
    }

    mutating func unhandled(_ click: UnhandledClick, line: Int) {
        logger.warning("click with no handler; counted as unhandled", metadata: [
            "record": "\(click.notification)", "actionId": "\(click.actionId)", "type": "\(click.kind)"])
    }

    mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64) {
        Reply.outbox(entries, after: after, into: &replies)
    }
}
