/// How records are written: SPEC section 3's records, or APNs payloads.
public enum OutputFormat: String, Sendable, CaseIterable {
    case records, apns
}

extension RulesEngine {
    /// One line of a stream that mixes beacon events and responses: an event's records, or what a
    /// response's handler emitted (rescheduled records in `format`, follow-ups as JSON), appended to
    /// `writer` as JSON lines. A response that no handler took is returned so the caller can report
    /// it. Blank lines are skipped.
    @discardableResult
    public mutating func replayInput(
        line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String, format: OutputFormat, into writer: inout JSONWriter
    ) throws(EventError) -> ResponseOutcome? {
        if EventParser.isBlank(line) { return nil }
        switch try EventParser.parseInput(line: line, fallbackID: fallbackID()) {
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
            return outcome
        }
    }
}
