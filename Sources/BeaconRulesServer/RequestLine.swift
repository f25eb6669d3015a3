import BeaconRules
import NIOCore

/// One request line of a connection, parsed as the connection reads it (on its event loop) and
/// handed to the `EngineOwner` in the connection's order.
enum RequestLine: Sendable {
    /// A valid event; `line` is its 1-based number on the connection.
    case event(BeaconEvent, line: Int)
    /// A valid response to a delivered record (SPEC section 8).
    case response(ResponseEvent, line: Int)
    /// A raw sighting (SPEC section 7), for the presence layer.
    case sighting(Sighting, line: Int)
    /// `{"type":"outbox","after":N}`: the records that fired on the clock after sequence number N.
    case outbox(after: Int64, line: Int)
    /// A line that is not an event: answered with this message, changes nothing.
    case rejected(line: Int, message: String)

    var line: Int {
        switch self {
        case .event(_, let line), .response(_, let line), .sighting(_, let line), .outbox(_, let line), .rejected(let line, _): line
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
                switch try EventParser.parseInput(line: bytes, fallbackID: noID()) {
                case .beacon(var event):
                    if !hasOwnID { event.id = EventIdentity.id(of: event) }
                    return .event(event, line: line)
                case .response(var response):
                    if !hasOwnID { response.id = EventIdentity.id(of: response) }
                    return .response(response, line: line)
                case .sighting(var sighting, _):
                    if !hasOwnID { sighting.id = EventIdentity.id(of: sighting) }
                    return .sighting(sighting, line: line)
                }
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
        case .event(let event, let number): append(.beacon(event), line: number, identified: true)
        case .response(let response, let number): append(.response(response), line: number, identified: true)
        case .sighting(let sighting, let number): append(.sighting(sighting, typeColumn: 0), line: number, identified: true)
        case .outbox(let after, let number): appendOutboxRequest(after: after, line: number)
        case .rejected(let number, let message): appendRejected(message, line: number)
        }
    }
}
