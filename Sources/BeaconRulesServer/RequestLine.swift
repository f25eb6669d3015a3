import BeaconRules
import NIOCore

/// One request line of a connection, parsed on the connection's own task (so parsing runs in
/// parallel across connections) and handed to the `EngineOwner` in the connection's order.
enum RequestLine: Sendable {
    /// A valid event; `line` is its 1-based number on the connection.
    case event(BeaconEvent, line: Int)
    /// A line that is not an event: answered with this message, changes nothing.
    case rejected(line: Int, message: String)

    var line: Int {
        switch self {
        case .event(_, let line), .rejected(let line, _): line
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
                // parseInput, so a line's message is the one `replay` gives (a sighting without
                // `rssi` is told so); the server itself does not run the presence layer yet.
                switch try EventParser.parseInput(line: bytes, fallbackID: noID()) {
                case .beacon(var event):
                    if !hasOwnID { event.id = EventIdentity.id(of: event) }
                    return .event(event, line: line)
                case .sighting(_, let column):
                    return .rejected(line: line, message: "field `type`: \"sighting\" events are not accepted by `serve` yet (the presence layer runs in `replay`); expected \"enter\" or \"exit\" (column \(column))")
                }
            } catch {
                return .rejected(line: line, message: error.description)
            }
        }
    }
}
