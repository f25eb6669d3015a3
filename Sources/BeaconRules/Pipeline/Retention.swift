/// How long a `LinePipeline` remembers what it would otherwise keep forever (SPEC section 5):
/// answered events, suppression state, delivered notifications.
///
/// Each kind has its own clock:
/// - **answers** (and the outbox) by the wall clock the driver passes in (`setWallClock`),
///   counted from when the batch that answered them was applied: a resend within `answers` gets
///   the same bytes, after it the id is new;
/// - **suppression state** by event time: an entry goes once the newest event time seen (from any
///   device) is `lateness` past the end of its interval; once-only state stays while its campaign
///   is loaded. Events of one device may arrive up to `lateness` behind the newest event time of
///   the stream and are still decided exactly as if nothing had been forgotten. Generous by
///   default (7 days): this state grows with devices and campaigns, never with events;
/// - **deliveries** by event time after the record's `fireDate`: a response later than
///   `responseWindow` after it is refused, and the ledger forgets the delivery once the newest event
///   time seen is `responseLateness` past the window (a response that arrives later than that is
///   refused as too late even if its own time was within the window).
public struct Retention: Sendable, Equatable {
    /// Milliseconds of wall-clock time an answered event is remembered for.
    public var answers: Int64
    /// Milliseconds of event time after a record's `fireDate` in which responses to it are taken.
    public var responseWindow: Int64
    /// Milliseconds of event time an event may arrive behind the newest one seen, for suppression.
    public var lateness: Int64
    /// Milliseconds of event time a response may arrive behind the newest event seen.
    public var responseLateness: Int64

    /// Retention in milliseconds; the defaults are SPEC section 5's.
    public init(
        answers: Int64 = Retention.day, responseWindow: Int64 = 7 * Retention.day,
        lateness: Int64 = 7 * Retention.day, responseLateness: Int64 = Retention.hour
    ) {
        self.answers = answers
        self.responseWindow = responseWindow
        self.lateness = lateness
        self.responseLateness = responseLateness
    }

    /// SPEC section 5's defaults: answers for `24h`, responses for `7d`.
    public static var `default`: Retention { Retention() }

    /// A second in milliseconds, the unit of every retention.
    public static let second: Int64 = 1000
    /// A minute in milliseconds.
    public static let minute: Int64 = 60 * second
    /// An hour in milliseconds.
    public static let hour: Int64 = 60 * minute
    /// A day in milliseconds.
    public static let day: Int64 = 24 * hour

    /// A duration as SPEC section 5 writes it, `90s`, `15m`, `24h` or `7d` (a positive whole
    /// number and one unit), in milliseconds.
    public static func milliseconds(_ text: String) throws(RetentionError) -> Int64 {
        let units: [Character: Int64] = ["s": second, "m": minute, "h": hour, "d": day]
        guard let unit = text.last, let scale = units[unit] else {
            throw RetentionError(text: text, reason: "expected a whole number and a unit s, m, h or d, as 90s, 15m, 24h or 7d")
        }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(digits) else {
            throw RetentionError(text: text, reason: "expected a whole number before the unit, as 90s, 15m, 24h or 7d")
        }
        guard count > 0 else { throw RetentionError(text: text, reason: "expected a duration above zero") }
        let (ms, overflow) = count.multipliedReportingOverflow(by: scale)
        guard !overflow, ms <= 100 * 365 * day else { throw RetentionError(text: text, reason: "expected at most a hundred years") }
        return ms
    }

    /// A duration in the largest unit that divides it: `7d`, `24h`, `15m`, `90s` (or `1500ms`).
    public static func text(milliseconds ms: Int64) -> String {
        for (unit, scale) in [("d", day), ("h", hour), ("m", minute), ("s", second)] where ms != 0 && ms % scale == 0 {
            return "\(ms / scale)\(unit)"
        }
        return "\(ms)ms"
    }
}

/// A duration that does not read: the text, and what was expected.
public struct RetentionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The duration as given.
    public var text: String
    /// What a duration looks like (`15m`, `24h`, `7d`), and what was wrong.
    public var reason: String

    /// The error for `text`.
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    /// `"TEXT" is not a duration: REASON`, as options' errors say it.
    public var description: String { "\"\(text)\" is not a duration: \(reason)" }
}
