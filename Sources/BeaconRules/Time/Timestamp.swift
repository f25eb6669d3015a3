/// A point in time as epoch milliseconds (UTC). All engine times are event times of this type.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    @inlinable public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// RFC 3339 in UTC with `Z`; milliseconds only when not zero (`2016-05-10T16:00:00Z`).
    public var description: String {
        var writer = JSONWriter(capacity: 24)
        appendRFC3339(to: &writer.bytes)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public func appendRFC3339(to out: inout [UInt8]) {
        let ms = milliseconds
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 { rest += 86_400_000; days -= 1 }
        let (year, month, day) = CivilTime.civilFromDays(days)
        let hour = rest / 3_600_000, minute = rest / 60_000 % 60, second = rest / 1000 % 60, milli = rest % 1000
        func pad(_ v: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(0x30 + v / divisor % 10))
                divisor /= 10
            }
        }
        if year < 0 { out.append(0x2D); pad(-year, 4) } else if year > 9999 { out.append(contentsOf: String(year).utf8) } else { pad(year, 4) }
        out.append(0x2D); pad(month, 2); out.append(0x2D); pad(day, 2)
        out.append(0x54); pad(hour, 2); out.append(0x3A); pad(minute, 2); out.append(0x3A); pad(second, 2)
        if milli != 0 { out.append(0x2E); pad(milli, 3) }
        out.append(0x5A)
    }
}

/// What an RFC 3339 parse produced.
public enum TimestampParse: Sendable, Equatable {
    case time(Timestamp, hasZone: Bool)
    /// A time of day with no date at all (`14:34:22`), as some Sensorberg layouts carry.
    case timeOfDayOnly
    case invalid(reason: String)
}

extension Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`. Fractions beyond milliseconds
    /// are truncated; `t`, `z` and a space instead of `T` are accepted as RFC 3339 allows.
    public static func parseRFC3339(_ text: String) -> TimestampParse {
        var copy = text
        return copy.withUTF8 { parseRFC3339(bytes: $0) }
    }

    public static func parseRFC3339(bytes b: UnsafeBufferPointer<UInt8>) -> TimestampParse {
        let n = b.count
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= n else { return nil }
            var v: Int64 = 0
            for k in 0..<width {
                let d = b[i + k] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int64(d)
            }
            i += width
            return v
        }
        func take(_ byte: UInt8) -> Bool {
            guard i < n, b[i] == byte else { return false }
            i += 1
            return true
        }
        // "14:34:22": a time with no date.
        if n >= 8, b[2] == 0x3A, b[5] == 0x3A, (0..<2).allSatisfy({ isDigit(b[$0]) }) { return .timeOfDayOnly }
        guard let year = number(4) else { return .invalid(reason: "expected a 4-digit year") }
        guard take(0x2D), let month = number(2) else { return .invalid(reason: "expected `-MM` after the year") }
        guard take(0x2D), let day = number(2) else { return .invalid(reason: "expected `-DD` after the month") }
        guard (1...12).contains(month) else { return .invalid(reason: "month \(month) is not 1...12") }
        guard day >= 1, day <= CivilTime.daysInMonth(year: year, month: month) else {
            return .invalid(reason: "day \(day) does not exist in \(year)-\(month < 10 ? "0" : "")\(month)")
        }
        guard i < n, b[i] == 0x54 || b[i] == 0x74 || b[i] == 0x20 else {
            return .invalid(reason: "expected `T` and a time after the date")
        }
        i += 1
        guard let hour = number(2), take(0x3A), let minute = number(2), take(0x3A), let second = number(2) else {
            return .invalid(reason: "expected the time as HH:MM:SS")
        }
        guard hour < 24, minute < 60, second < 60 else { return .invalid(reason: "time \(hour):\(minute):\(second) is out of range") }
        var millis: Int64 = 0
        if take(0x2E) {
            var digits = 0
            while i < n, isDigit(b[i]) {
                if digits < 3 { millis = millis * 10 + Int64(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return .invalid(reason: "expected digits after the decimal point") }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetMinutes: Int64 = 0
        var hasZone = false
        if i < n {
            if b[i] == 0x5A || b[i] == 0x7A {
                i += 1
                hasZone = true
            } else if b[i] == 0x2B || b[i] == 0x2D {
                let sign: Int64 = b[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = number(2) else { return .invalid(reason: "expected the zone offset as ±HH:MM or ±HHMM") }
                _ = take(0x3A)
                guard let om = number(2), oh < 24, om < 60 else { return .invalid(reason: "expected the zone offset as ±HH:MM or ±HHMM") }
                offsetMinutes = sign * (oh * 60 + om)
                hasZone = true
            }
        }
        guard i == n else { return .invalid(reason: "unexpected text after the time") }
        let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
        let ms = ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60_000 + second * 1000 + millis
        return .time(Timestamp(milliseconds: ms), hasZone: hasZone)
    }
}
