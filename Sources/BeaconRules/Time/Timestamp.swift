/// A point in time as epoch milliseconds (UTC). All engine times are event times of this type.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// The instant this many milliseconds after the epoch.
    @inlinable public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Earlier first.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// RFC 3339 in UTC with `Z`; milliseconds only when not zero (`2016-05-10T16:00:00Z`).
    public var description: String {
        var writer = JSONWriter(capacity: 24)
        appendRFC3339(to: &writer.bytes)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Appends the RFC 3339 form (see `description`).
    public func appendRFC3339(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.longestRFC3339) { buffer in
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: writeRFC3339(to: buffer.baseAddress!)))
        }
    }

    /// The most bytes `writeRFC3339` writes: a sign, the year (Int64 milliseconds reach year
    /// 292,278,994), then `-MM-DDTHH:MM:SS.mmmZ`.
    public static let longestRFC3339 = 32

    /// Writes the RFC 3339 form at `p` (room for `longestRFC3339` bytes) in one pass and returns
    /// its length: this runs for every event on the hot path. Years outside 0...9999 get a sign or
    /// more digits (RFC 3339 has no form for them).
    @inline(__always)
    public func writeRFC3339(to p: UnsafeMutablePointer<UInt8>) -> Int {
        let ms = milliseconds
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 { rest += 86_400_000; days -= 1 }
        let (year, month, day) = CivilTime.civilFromDays(days)
        let hour = rest / 3_600_000, minute = rest / 60_000 % 60, second = rest / 1000 % 60, milli = rest % 1000
        var n = 4
        if year >= 0 && year <= 9999 {
            Digits.write2(year / 100, p); Digits.write2(year % 100, p + 2)
        } else {
            n = year < 0 ? 1 : 0
            if year < 0 { p[0] = 0x2D }
            n += Digits.writeDecimal(year.magnitude, minimumDigits: 4, p + n)
        }
        let q = p + n
        q[0] = 0x2D; Digits.write2(month, q + 1); q[3] = 0x2D; Digits.write2(day, q + 4)
        q[6] = 0x54; Digits.write2(hour, q + 7); q[9] = 0x3A; Digits.write2(minute, q + 10)
        q[12] = 0x3A; Digits.write2(second, q + 13)
        var count = 15
        if milli != 0 {
            q[15] = 0x2E
            q[16] = UInt8(truncatingIfNeeded: 0x30 + milli / 100)
            Digits.write2(milli % 100, q + 17)
            count = 19
        }
        q[count] = 0x5A
        return n + count + 1
    }
}

/// Decimal and hex digits written straight into a buffer (formatting on the hot path), and
/// checked a word at a time (parsing).
@usableFromInline
enum Digits {
    /// Whether every byte of `w` where `mask` has 0xFF is an ASCII digit (first byte lowest):
    /// 0x30...0x39 have the high nibble 3, and keep it when 6 is added (0x3A and above carry).
    @inlinable @inline(__always)
    static func areASCII(_ w: UInt64, where mask: UInt64) -> Bool {
        let highs = mask & 0xF0F0_F0F0_F0F0_F0F0, threes = mask & 0x3030_3030_3030_3030
        let d = w & mask
        return d & highs == threes && (d &+ (mask & 0x0606_0606_0606_0606)) & highs == threes
    }

    /// `value` (0...99) as two decimal digits at `p`.
    @inline(__always)
    static func write2(_ value: Int64, _ p: UnsafeMutablePointer<UInt8>) {
        let v = UInt8(truncatingIfNeeded: value)
        p[0] = 0x30 &+ v / 10
        p[1] = 0x30 &+ v % 10
    }

    /// `value` (0...99999) as five decimal digits at `p`.
    @inline(__always)
    static func write5(_ value: UInt16, _ p: UnsafeMutablePointer<UInt8>) {
        let v = UInt32(value)
        p[0] = UInt8(truncatingIfNeeded: 0x30 &+ v / 10000)
        p[1] = UInt8(truncatingIfNeeded: 0x30 &+ v / 1000 % 10)
        p[2] = UInt8(truncatingIfNeeded: 0x30 &+ v / 100 % 10)
        p[3] = UInt8(truncatingIfNeeded: 0x30 &+ v / 10 % 10)
        p[4] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10)
    }

    /// `value` in decimal, zero-padded to `minimumDigits`, at `p`; returns the digits written.
    static func writeDecimal(_ value: UInt64, minimumDigits: Int, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let count = max(digits, minimumDigits)
        var v = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            p[i] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        return count
    }

    /// `value` as 16 lower-case hex digits at `p`.
    @inline(__always)
    static func writeHex16(_ value: UInt64, _ p: UnsafeMutablePointer<UInt8>) {
        for k in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * k)) & 0xF
            p[k] = nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
        }
    }
}

/// What an RFC 3339 parse produced.
package enum TimestampParse: Sendable, Equatable {
    case time(Timestamp, hasZone: Bool)
    /// A time of day with no date at all (`14:34:22`), as some Sensorberg layouts carry.
    case timeOfDayOnly
    case invalid(reason: String)
}

extension Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]`. Fractions beyond milliseconds
    /// are truncated; `t`, `z` and a space instead of `T` are accepted as RFC 3339 allows.
    package static func parseRFC3339(_ text: String) -> TimestampParse {
        var copy = text
        return copy.withUTF8 { parseRFC3339(bytes: $0) }
    }

    package static func parseRFC3339(bytes b: UnsafeBufferPointer<UInt8>) -> TimestampParse {
        var dates = UTCDateCache()
        if let utc = parseCanonicalUTC(b, dates: &dates) { return .time(utc, hasZone: true) }
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

    /// `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form records use and most traces
    /// carry, read in one pass; nil for anything else (the general parse then reads it, or says
    /// what is wrong). Gives exactly what the general parse gives.
    ///
    /// Read a word at a time: each word is checked against its layout (digits where digits go,
    /// the separators where they go) at once, then its digits are picked out.
    /// The date is converted only when it is not the one `dates` holds (a stream of events is
    /// mostly one day after another); `dates` then holds this time's date.
    @inline(__always)
    static func parseCanonicalUTC(_ b: UnsafeBufferPointer<UInt8>, dates: inout UTCDateCache) -> Timestamp? {
        let n = b.count
        guard n == 20 || n == 24, let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        // First byte lowest: "YYYY-MM-", "DDTHH:MM", ":SS" then "Z" or ".", and "mmmZ".
        let w0 = raw.loadUnaligned(as: UInt64.self)
        let w1 = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let w2 = UInt64(raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let w3 = n == 24 ? UInt64(raw.loadUnaligned(fromByteOffset: 20, as: UInt32.self)) : 0x5A30_3030
        guard Self.fits(w0, digits: 0x00FF_FF00_FFFF_FFFF, separatorBytes: 0xFF00_00FF_0000_0000, separators: 0x2D00_002D_0000_0000),
              Self.fits(w1, digits: 0xFFFF_00FF_FF00_FFFF, separatorBytes: 0x0000_FF00_00FF_0000, separators: 0x0000_3A00_0054_0000),
              Self.fits(w2, digits: 0x00FF_FF00, separatorBytes: 0xFF00_00FF, separators: (n == 24 ? 0x2E00_0000 : 0x5A00_0000) | 0x3A),
              Self.fits(w3, digits: 0x00FF_FFFF, separatorBytes: 0xFF00_0000, separators: 0x5A00_0000) else { return nil }
        @inline(__always) func digit(_ w: UInt64, _ k: UInt64) -> Int64 { Int64(w >> (8 * k) & 0x0F) }
        let days: Int64
        if w0 == dates.yearMonth && w1 & 0xFFFF == dates.day {
            days = dates.days
        } else {
            let year = digit(w0, 0) * 1000 + digit(w0, 1) * 100 + digit(w0, 2) * 10 + digit(w0, 3)
            let month = digit(w0, 5) * 10 + digit(w0, 6), day = digit(w1, 0) * 10 + digit(w1, 1)
            guard month >= 1, month <= 12, day >= 1, day <= CivilTime.daysInMonth(year: year, month: month) else { return nil }
            days = CivilTime.daysFromCivil(year: year, month: month, day: day)
            dates = UTCDateCache(yearMonth: w0, day: w1 & 0xFFFF, days: days)
        }
        let hour = digit(w1, 3) * 10 + digit(w1, 4), minute = digit(w1, 6) * 10 + digit(w1, 7)
        let second = digit(w2, 1) * 10 + digit(w2, 2)
        let millis = digit(w3, 0) * 100 + digit(w3, 1) * 10 + digit(w3, 2)
        guard hour < 24, minute < 60, second < 60 else { return nil }
        return Timestamp(milliseconds: ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
    }

    /// Whether `w`'s bytes are ASCII digits where `digits` has 0xFF bytes and equal `separators`
    /// where `separatorBytes` has them.
    @inline(__always)
    private static func fits(_ w: UInt64, digits: UInt64, separatorBytes: UInt64, separators: UInt64) -> Bool {
        Digits.areASCII(w, where: digits) && w & separatorBytes == separators
    }
}

/// The date of the last `...Z` time read (`Timestamp.parseCanonicalUTC(_:dates:)`): its first ten
/// bytes as two words, and its days since 1970. Empty, it matches no date.
struct UTCDateCache: Sendable {
    var yearMonth: UInt64 = 0
    var day: UInt64 = .max
    var days: Int64 = 0

    init() {}

    init(yearMonth: UInt64, day: UInt64, days: Int64) {
        self.yearMonth = yearMonth
        self.day = day
        self.days = days
    }
}
