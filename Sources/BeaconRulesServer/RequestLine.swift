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

    /// Reads one framed line as every connection does (`LineIntake.connection`): a line without
    /// `id` gets its content-derived id (see `EventIdentity`).
    static func parse(_ frame: LineFramer.Frame, line: Int, limit: Int) -> RequestLine {
        guard case .line(let buffer) = frame else {
            return .rejected(line: line, message: LineIntake.tooLongMessage(limit: limit))
        }
        let read = buffer.withUnsafeReadableBytes { raw in intake.read(raw.bindMemory(to: UInt8.self), number: line) }
        return RequestLine(read, line: line)
    }

    /// Line `line` as the intake read it (a blank line is answered, not skipped).
    init(_ read: ReadLine, line: Int) {
        switch read {
        case .input(let input, _): self = .input(input, line: line)
        case .outbox(let after): self = .outbox(after: after, line: line)
        case .rejected(let message): self = .rejected(line: line, message: message)
        case .blank: self = .rejected(line: line, message: LineIntake.blankLineMessage)
        }
    }

    /// A socket's lines: every line with an id names its event (`identified`).
    static let intake = LineIntake.connection(readsOutboxRequests: true)
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

/// A request line of `serve --apps`: the line, and the index of the app it names (`LineApps`), or
/// nil when it names none (then the line is a refusal that says so, and reaches no app).
struct AppRequestLine: Sendable {
    var app: Int?
    var line: RequestLine

    /// Reads one framed line as `RequestLine.parse` does, and the app its `app` member names
    /// first, in one scan (`LineApps.read`): a line too long or blank is answered as without
    /// apps; a line naming no app of `apps` is refused with the rule's message.
    static func parse(_ frame: LineFramer.Frame, line: Int, limit: Int, apps: LineApps) -> AppRequestLine {
        guard case .line(let buffer) = frame else {
            return AppRequestLine(app: nil, line: .rejected(line: line, message: LineIntake.tooLongMessage(limit: limit)))
        }
        return buffer.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if EventParser.isBlank(bytes) {
                return AppRequestLine(app: nil, line: .rejected(line: line, message: LineIntake.blankLineMessage))
            }
            switch apps.read(bytes, number: line, intake: RequestLine.intake) {
            case .failure(let refusal):
                return AppRequestLine(app: nil, line: .rejected(line: line, message: refusal.message))
            case .success(let read):
                return AppRequestLine(app: read.app, line: RequestLine(read.line, line: line))
            }
        }
    }
}
