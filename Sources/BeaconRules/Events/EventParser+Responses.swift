/// Lines of a stream that mixes beacon events and responses. Beacon events keep the byte-level fast
/// path; a line whose `type` is `response` is scanned again by the response reader (responses are
/// rare next to events, so the second pass costs nothing that matters).
extension EventParser {
    /// A beacon event, a sighting or a response. Other lines are rejected with the same messages as `parse`.
    public static func parseInput(line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String) throws(EventError) -> InputLine {
        if let event = parseCanonical(line) { return .beacon(event) }
        return try parseInputInGeneral(line: line, fallbackID: fallbackID())
    }

    /// `parseInput` without the one-pass path for the usual layout (`parseCanonical`): for lines
    /// that a caller has already tried in that layout (`InPlaceEventBatch.appendUsualLayout`).
    public static func parseInputInGeneral(line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String) throws(EventError) -> InputLine {
        var app = AppMember.absent
        return try parseInputInGeneral(line: line, fallbackID: fallbackID(), app: &app)
    }

    /// `parseInputInGeneral`, and the line's first member `app` met on the way (`LineApps`: the
    /// one scan of a line that names its app).
    package static func parseInputInGeneral(
        line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String, app: inout AppMember
    ) throws(EventError) -> InputLine {
        try reporting {
            do {
                var s = JSONScanner(line)
                switch try parseObject(&s, fallbackID: fallbackID, acceptsSightings: true, acceptResponses: true, app: &app) {
                case .beacon(let event): return .beacon(event)
                case .sighting(let sighting, let typeColumn): return .sighting(sighting, typeColumn: typeColumn)
                }
            } catch is ResponseLine {
                var s = JSONScanner(line)
                app = .absent
                return .response(try parseResponse(&s, fallbackID: fallbackID, app: &app))
            }
        }
    }

    /// Reads one input line of any kind (event, sighting or response); the error names the column
    /// and what was expected.
    public static func parseInput(line: String, fallbackID: String) throws(EventError) -> InputLine {
        try withBytes(line) { bytes throws(EventError) in try parseInput(line: bytes, fallbackID: fallbackID) }
    }

    /// Runs a scan, turning whatever it throws into the `EventError` the caller reports.
    /// Always inlined: unspecialized, every event would be copied through value witnesses.
    @inline(__always)
    static func reporting<T>(_ scan: () throws -> T) throws(EventError) -> T {
        do {
            return try scan()
        } catch let error as EventError {
            throw error
        } catch let error as JSONSyntaxError {
            throw EventError("invalid JSON: \(error.message)", column: error.column)
        } catch {
            throw EventError("invalid line: \(error)")
        }
    }

    /// A `String` line as the bytes the scanners read.
    static func withBytes<T>(_ line: String, _ body: (UnsafeBufferPointer<UInt8>) throws(EventError) -> T) throws(EventError) -> T {
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in Result { () throws(EventError) in try body(buffer) } }
        return try result.get()
    }

    /// Thrown by the beacon scanner when it meets `"type":"response"`.
    struct ResponseLine: Error {}

    static func parseResponse(_ s: inout JSONScanner, fallbackID: () -> String, app: inout AppMember) throws -> ResponseEvent {
        s.skipWhitespace()
        s.position += 1 // `{`: the beacon scanner already checked it
        var id: String?
        var device: String?
        var notification: String?
        var action: ResponseAction?
        var actionId: String?
        var time: Timestamp?
        var data: JSONValue?
        var text: String?
        try forEachField(&s) { s, keyRange, keyEscaped in
            let key = try s.decodeString(keyRange, escaped: keyEscaped)
            let column = s.column
            switch key {
            case "id":
                id = try optionalText(&s, field: "id", allowNumber: true)
                if id?.isEmpty == true { throw EventError("field `id`: expected a non-empty string", column: column) }
            case "device":
                guard let text = try optionalText(&s, field: "device", allowNumber: false), !text.isEmpty else {
                    throw EventError("field `device`: expected a non-empty string (the device that responded)", column: column)
                }
                device = text
            case "notification":
                guard let text = try optionalText(&s, field: "notification", allowNumber: false), !text.isEmpty else {
                    throw EventError("field `notification`: expected the record id the response is about (CAMPAIGN:DEVICE:EVENT)", column: column)
                }
                notification = text
            case "action":
                let text = try optionalText(&s, field: "action", allowNumber: false)
                guard let text, let parsed = ResponseAction(rawValue: text) else {
                    throw EventError("field `action`: expected \"present\", \"open\", \"click\" or \"dismiss\", found \(text.map { "\"\($0)\"" } ?? "null")", column: column)
                }
                action = parsed
            case "actionId":
                actionId = try optionalText(&s, field: "actionId", allowNumber: false)
                if actionId?.isEmpty == true { throw EventError("field `actionId`: expected a button id (\"ok\", \"cancel\", ...) or no field for a tap on the notification", column: column) }
            case "time":
                time = try parseTime(&s, column: column)
            case "data":
                s.skipWhitespace()
                var builder = JSONTreeBuilder()
                let value = try builder.value(&s, depth: 1)
                data = value.isNull ? nil : value
            case "text":
                text = try optionalText(&s, field: "text", allowNumber: false)
            case "app":
                try readApp(&s, into: &app)
            default:
                try s.skipValue()
            }
        }
        guard let device else { throw EventError("missing field `device`: expected a non-empty string") }
        guard let notification else { throw EventError("missing field `notification`: expected the record id the response is about (CAMPAIGN:DEVICE:EVENT)") }
        guard let action else { throw EventError("missing field `action`: expected \"present\", \"open\", \"click\" or \"dismiss\"") }
        guard let time else { throw EventError("missing field `time`: expected RFC 3339 (2016-05-10T16:00:00Z) or epoch milliseconds") }
        return ResponseEvent(id: id ?? fallbackID(), device: device, notification: notification, action: action, actionId: actionId, time: time, data: data, text: text)
    }
}
