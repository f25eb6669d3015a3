package import BeaconRules

/// Where the service's pipeline answers: each line's outcome, in order, for the call that
/// brought the line.
package struct ServiceOutput: LineOutput {
    package enum Outcome {
        /// The line's records: JSON lines, each ending in `\n`.
        case accepted(event: String, records: [UInt8])
        case rejected(line: Int, message: String)
    }

    /// One line's records at a time (taken after each line).
    package var records = JSONWriter(capacity: 1 << 12)
    package var outcomes: [Outcome] = []
    /// Clicks on action types with no handler, since last taken (logged by the service).
    package var unhandled: [UnhandledClick] = []
    /// How long the last call's commit took.
    package var commitDuration = Duration.zero

    package mutating func accepted(event id: @autoclosure () -> String) {
        outcomes.append(.accepted(event: id(), records: records.bytes))
        records.removeAll()
    }

    package mutating func answered(event id: String, records answer: [UInt8]) {
        outcomes.append(.accepted(event: id, records: answer))
    }

    package mutating func rejected(line: Int, message: String) {
        records.removeAll()
        outcomes.append(.rejected(line: line, message: message))
    }

    package mutating func unhandled(_ click: UnhandledClick, line: Int) {
        unhandled.append(click)
    }

    /// The service takes no outbox requests: never called.
    package mutating func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64) {}
}
