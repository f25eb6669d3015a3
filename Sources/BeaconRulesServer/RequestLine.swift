import BeaconRules
import NIOCore

/// One request line of a connection, parsed as the connection reads it (on its event loop) and
/// handed to the `EngineOwner` in the connection's order.
enum RequestLine: Sendable {
    /// Valid input: an event, a response to a delivered record (SPEC section 8) or a raw
    /// sighting (SPEC section 7); `line` is its 1-based number on the connection.
    case input(InputLine, line: Int)
    /// `{"type":"outbox","after":N}`: the records that fired on the clock after sequence number N.
    case outbox(after: Int64, line: Int)
    /// A line that is not an event: answered with this message, changes nothing.
    case rejected(line: Int, message: String)

    var line: Int {
        switch self {
        case .input(_, let line), .outbox(_, let line), .rejected(let line, _): line
        }
    }

    /// Parses one framed line. A line without `id` gets its content-derived id (see `EventIdentity`).
    static func parse(_ frame: LineFramer.Frame, line: Int, limit: Int) -> RequestLine {
        guard case .line(let buffer) = frame else {
            return .rejected(line: line, message: "line longer than \(limit) bytes; skipped up to its newline")
        }
        return buffer.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if EventParser.isBlank(bytes) {
                return .rejected(line: line, message: "blank line; expected one JSON event object")
            }
            var hasOwnID = true
            func noID() -> String {
                hasOwnID = false
                return ""
            }
            do throws(EventError) {
                let input = try EventParser.parseInput(line: bytes, fallbackID: noID())
                return .input(hasOwnID ? input : EventIdentity.identified(input), line: line)
            } catch {
                // Only a line that is not an event pays for this second look.
                if let after = outboxRequest(bytes) { return .outbox(after: after, line: line) }
                return .rejected(line: line, message: error.description)
            }
        }
    }

    /// `{"type":"outbox","after":N}` (N >= 0, default 0), or nil.
    static func outboxRequest(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let value = try? JSONParser.parse(bytes), value["type"]?.stringValue == "outbox" else { return nil }
        let after = value["after"]?.integerValue ?? 0
        return after >= 0 ? after : nil
    }
}

extension LinePipeline {
    /// Queues a connection's line. Every line with an id is logged by it: a line without one has
    /// its content-derived id (`EventIdentity`), which names the event, so a resent line is
    /// answered as before.
    func append(_ line: RequestLine) {
        switch line {
        case .input(let input, let number): append(input, line: number, identified: true)
        case .outbox(let after, let number): appendOutboxRequest(after: after, line: number)
        case .rejected(let number, let message): appendRejected(message, line: number)
        }
    }
}
