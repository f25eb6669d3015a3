/// One iBeacon: proximity UUID, major and minor. Its text form is the 42-char pid
/// (32 lower-case hex digits, 5-digit major, 5-digit minor).
public struct BeaconID: Sendable, Hashable, CustomStringConvertible {
    public var uuid: ProximityUUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: ProximityUUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Parses a 42-char pid, hex in any case. Returns nil unless it is exactly that.
    public init?(pid: String) {
        var copy = pid
        guard let id = copy.withUTF8({ BeaconID(pidBytes: $0) }) else { return nil }
        self = id
    }

    @inlinable
    public init?(pidBytes b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 42, let uuid = ProximityUUID(hex32: UnsafeBufferPointer(rebasing: b[0..<32])) else { return nil }
        var major: UInt32 = 0, minor: UInt32 = 0
        for k in 32..<37 {
            let d = b[k] &- 0x30
            guard d < 10 else { return nil }
            major = major * 10 + UInt32(d)
        }
        for k in 37..<42 {
            let d = b[k] &- 0x30
            guard d < 10 else { return nil }
            minor = minor * 10 + UInt32(d)
        }
        guard major <= 65535, minor <= 65535 else { return nil }
        self.init(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
    }

    /// The lower-case 42-char pid.
    public var description: String { String(decoding: pidBytes, as: UTF8.self) }

    public var pidBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(42)
        appendPid(to: &out)
        return out
    }

    public func appendPid(to out: inout [UInt8]) {
        uuid.appendHex(to: &out)
        for value in [major, minor] {
            let v = Int(value)
            out.append(UInt8(0x30 + v / 10000))
            out.append(UInt8(0x30 + v / 1000 % 10))
            out.append(UInt8(0x30 + v / 100 % 10))
            out.append(UInt8(0x30 + v / 10 % 10))
            out.append(UInt8(0x30 + v % 10))
        }
    }
}

/// A 128-bit proximity UUID.
public struct ProximityUUID: Sendable, Hashable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses 32 hex digits in any case.
    @inlinable
    public init?(hex32 b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 32 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for k in 0..<16 {
            guard let d = hexDigitValue(b[k]) else { return nil }
            high = high << 4 | UInt64(d)
        }
        for k in 16..<32 {
            guard let d = hexDigitValue(b[k]) else { return nil }
            low = low << 4 | UInt64(d)
        }
        self.init(high: high, low: low)
    }

    /// Parses 32 hex digits, ignoring dashes anywhere (`73676723-7400-0000-FFFF-0000FFFF0007`).
    public init?(text: String) {
        let hex = Array(text.utf8.filter { $0 != 0x2D })
        guard let uuid = hex.withUnsafeBufferPointer({ ProximityUUID(hex32: $0) }) else { return nil }
        self = uuid
    }

    public var description: String {
        var out: [UInt8] = []
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public func appendHex(to out: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        let p = digits.utf8Start
        for shift in stride(from: 60, through: 0, by: -4) { out.append(p[Int((high >> UInt64(shift)) & 0xF)]) }
        for shift in stride(from: 60, through: 0, by: -4) { out.append(p[Int((low >> UInt64(shift)) & 0xF)]) }
    }
}

extension BeaconID {
    /// Why `text` is not a pid, in words a user can act on; nil when it is one.
    public static func pidProblem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        if bytes.count != 42 {
            return "it has \(bytes.count) characters; a pid has 42 (32 hex proximity UUID, no dashes, + 5-digit major + 5-digit minor)"
        }
        if let bad = bytes[0..<32].firstIndex(where: { hexDigitValue($0) == nil }) {
            return "character \(bad + 1) is not a hex digit; the first 32 characters are the proximity UUID"
        }
        for (name, range) in [("major", 32..<37), ("minor", 37..<42)] {
            guard bytes[range].allSatisfy(isDigit) else { return "the \(name) (characters \(range.lowerBound + 1)-\(range.upperBound)) must be 5 decimal digits" }
            let value = Int(String(decoding: bytes[range], as: UTF8.self))!
            if value > 65535 { return "the \(name) \(value) is out of range 0...65535" }
        }
        return nil
    }
}
