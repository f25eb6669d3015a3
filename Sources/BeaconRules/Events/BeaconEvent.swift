/// A device entered or left a beacon's region at an event time.
public struct BeaconEvent: Sendable, Equatable {
    /// The event id; the caller supplies `SOURCE:LINE` when the input has none.
    public var id: String
    /// The device id (state and records are per device).
    public var device: String
    /// Enter or exit.
    public var kind: EventKind
    /// The beacon whose region it is.
    public var beacon: BeaconID
    /// The event time: every rule (timeframes, suppression, delays) goes by it, never the clock.
    public var time: Timestamp
    /// The device's language tag as given (`de-DE`, `de_AT`), if any.
    public var locale: String?

    /// An event of each part.
    public init(id: String, device: String, kind: EventKind, beacon: BeaconID, time: Timestamp, locale: String? = nil) {
        self.id = id
        self.device = device
        self.kind = kind
        self.beacon = beacon
        self.time = time
        self.locale = locale
    }
}

/// Why an input line is not an event: a message that names the field and what was expected.
public struct EventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what was expected.
    public var message: String
    /// 1-based byte column in the line where the problem starts, when known.
    public var column: Int?

    /// An error saying `message`, at `column` when known.
    public init(_ message: String, column: Int? = nil) {
        self.message = message
        self.column = column
    }

    /// The message, with its column when known.
    public var description: String {
        if let column { return "\(message) (column \(column))" }
        return message
    }
}
