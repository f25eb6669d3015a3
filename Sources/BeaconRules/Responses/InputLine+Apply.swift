extension InputLine {
    /// The id the line is known by: the event's or the response's.
    public var id: String {
        switch self {
        case .beacon(let event): event.id
        case .sighting(let sighting, _): sighting.id
        case .response(let response): response.id
        }
    }
}

/// A click whose action type has no handler, for the caller to report.
public struct UnhandledClick: Sendable, Equatable {
    /// The record id the click is about.
    public var notification: String
    /// The button clicked (`default` for the notification itself).
    public var actionId: String
    /// The action type no handler is registered for.
    public var kind: ActionKind
}

extension RulesEngine {
    /// Applies one parsed line: an event's records, or a response's outputs (rescheduled records in
    /// `format`, follow-ups as JSON), appended to `writer` as JSON lines. Returns the click that no
    /// handler took, if any, so the caller can report it.
    public mutating func apply(_ input: InputLine, format: OutputFormat, into writer: inout JSONWriter) throws(EventError) -> UnhandledClick? {
        switch input {
        case .beacon(let event):
            if format == .records {
                write(event, into: &writer)
            } else {
                process(event) { record in
                    record.appendAPNs(to: &writer)
                    writer.bytes.append(0x0A)
                }
            }
            return nil
        case .response(let response):
            let outcome: ResponseOutcome
            do { outcome = try respond(to: response) } catch { throw EventError(error.message) }
            for output in outcome.outputs {
                switch output {
                case .schedule(let record):
                    if format == .records { record.appendJSON(to: &writer) } else { record.appendAPNs(to: &writer) }
                case .followUp(let followUp):
                    followUp.appendJSON(to: &writer)
                }
                writer.bytes.append(0x0A)
            }
            return outcome.unhandled.map { UnhandledClick(notification: response.notification, actionId: response.actionId ?? "default", kind: $0) }
        case .sighting(_, let typeColumn):
            // The bare engine has no presence layer; `PresenceEngine` takes sightings.
            throw EventError("field `type`: \"sighting\" lines need the presence layer (replay --presence, or serve); expected \"enter\", \"exit\" or \"response\"", column: typeColumn)
        }
    }
}
