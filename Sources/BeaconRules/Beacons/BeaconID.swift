/// One iBeacon: proximity UUID, major and minor. Its text form is the 42-char pid
/// (32 lower-case hex digits, 5-digit major, 5-digit minor).
public struct BeaconID: Sendable, Hashable, CustomStringConvertible {
    /// The proximity UUID.
    public var uuid: ProximityUUID
    /// The major number.
    public var major: UInt16
    /// The minor number.
    public var minor: UInt16

    /// The beacon of these parts.
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

    /// Reads a 42-character pid (32 hex digits, then major and minor as 5 decimal digits each) from
    /// its UTF-8 bytes, with no `String` made; nil when the bytes are not one.
    @inlinable
    public init?(pidBytes b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 42, let uuid = ProximityUUID(hex32: UnsafeBufferPointer(rebasing: b[0..<32])) else { return nil }
        // The ten decimal digits as two loads (first digit lowest), all checked at once.
        let raw = UnsafeRawPointer(b.baseAddress! + 32)
        let w0 = raw.loadUnaligned(as: UInt64.self), w1 = UInt64(raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        guard Digits.areASCII(w0, where: ~0), Digits.areASCII(w1, where: 0xFFFF) else { return nil }
        let d0 = w0 & 0x0F0F_0F0F_0F0F_0F0F, d1 = w1 & 0x0F0F
        @inline(__always) func digit(_ w: UInt64, _ k: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: w >> (8 * k)) & 0xF }
        let major = digit(d0, 0) * 10000 + digit(d0, 1) * 1000 + digit(d0, 2) * 100 + digit(d0, 3) * 10 + digit(d0, 4)
        let minor = digit(d0, 5) * 10000 + digit(d0, 6) * 1000 + digit(d0, 7) * 100 + digit(d1, 0) * 10 + digit(d1, 1)
        guard major <= 65535, minor <= 65535 else { return nil }
        self.init(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
    }

    /// The lower-case 42-char pid.
    public var description: String { String(decoding: pidBytes, as: UTF8.self) }

    /// The lower-case 42-char pid as UTF-8.
    public var pidBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(42)
        appendPid(to: &out)
        return out
    }

    /// Appends the lower-case 42-char pid to `out`.
    public func appendPid(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 42) { buffer in
            writePid(to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: 42))
        }
    }

    /// Writes the 42-char pid at `p`.
    @inline(__always)
    public func writePid(to p: UnsafeMutablePointer<UInt8>) {
        Digits.writeHex16(uuid.high, p)
        Digits.writeHex16(uuid.low, p + 16)
        Digits.write5(major, p + 32)
        Digits.write5(minor, p + 37)
    }
}

/// A 128-bit proximity UUID.
public struct ProximityUUID: Sendable, Hashable, CustomStringConvertible {
    /// The first 8 bytes, big-endian (the first 16 hex digits).
    public var high: UInt64
    /// The last 8 bytes, big-endian (the last 16 hex digits).
    public var low: UInt64

    /// The UUID of these two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses 32 hex digits in any case.
    @inlinable
    public init?(hex32 b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 32, let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        guard let h0 = Self.hex8(raw.loadUnaligned(as: UInt64.self)),
              let h1 = Self.hex8(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
              let l0 = Self.hex8(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
              let l1 = Self.hex8(raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) else { return nil }
        self.init(high: UInt64(h0) << 32 | UInt64(h1), low: UInt64(l0) << 32 | UInt64(l1))
    }

    /// Eight hex digits in either case (as loaded from memory, first digit in the low byte) to
    /// their value; nil unless all eight are hex digits. All eight are checked at once.
    @inlinable @inline(__always)
    static func hex8(_ word: UInt64) -> UInt32? {
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard word & highs == 0 else { return nil }
        let lower = word | 0x2020_2020_2020_2020
        // Per byte, the high bit of `x + (0x80 - bound)` says `x >= bound` (no carries: every byte
        // is < 0x80). Digits are checked as written (lower-casing would turn 0x10...0x19 into digits).
        let digits = (word &+ 0x5050_5050_5050_5050) & ~(word &+ 0x4646_4646_4646_4646) & highs
        let letters = (lower &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(lower &+ 0x1919_1919_1919_1919) & highs
        guard digits | letters == highs else { return nil }
        let values = (lower & 0x0F0F_0F0F_0F0F_0F0F) &+ (letters >> 7) &* 9
        // Nibbles into bytes (first digit high), bytes into a word, in three shifts: the first
        // digit's byte ends lowest, so the byte swap puts it on top.
        let pairs = ((values << 4) | (values >> 8)) & 0x00FF_00FF_00FF_00FF
        let quads = (pairs | (pairs >> 8)) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: quads | (quads >> 16)).byteSwapped
    }

    /// Parses 32 hex digits, ignoring dashes anywhere (`73676723-7400-0000-FFFF-0000FFFF0007`).
    public init?(text: String) {
        let hex = Array(text.utf8.filter { $0 != 0x2D })
        guard let uuid = hex.withUnsafeBufferPointer({ ProximityUUID(hex32: $0) }) else { return nil }
        self = uuid
    }

    /// 32 lower-case hex digits, no dashes.
    public var description: String {
        var out: [UInt8] = []
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the 32 lower-case hex digits to `out`.
    public func appendHex(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            Digits.writeHex16(high, buffer.baseAddress!)
            Digits.writeHex16(low, buffer.baseAddress! + 16)
            out.append(contentsOf: UnsafeBufferPointer(buffer))
        }
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
