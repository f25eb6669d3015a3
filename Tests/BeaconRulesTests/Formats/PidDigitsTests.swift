@testable import BeaconRules
import Testing

/// A pid's major and minor are read as two words, all ten digits checked at once: every byte at
/// every digit position, and the limits, against a digit-by-digit reading.
@Suite("Pid major and minor")
struct PidDigitsTests {
    private static let uuid = "b9407f30f5f8466eaff925556b57fe6d"

    /// Digit by digit, as the SPEC says: 5 decimal digits each, at most 65535.
    private static func reference(_ pid: [UInt8]) -> (UInt16, UInt16)? {
        var values: [UInt32] = [0, 0]
        for k in 32..<42 {
            let d = pid[k] &- 0x30
            guard d < 10 else { return nil }
            values[(k - 32) / 5] = values[(k - 32) / 5] * 10 + UInt32(d)
        }
        guard values[0] <= 65535, values[1] <= 65535 else { return nil }
        return (UInt16(values[0]), UInt16(values[1]))
    }

    private static func read(_ pid: [UInt8]) -> BeaconID? {
        pid.withUnsafeBufferPointer { BeaconID(pidBytes: $0) }
    }

    @Test func everyByteAtEveryDigitPositionIsReadAsDigitByDigit() {
        let uuid = Array(Self.uuid.utf8).withUnsafeBufferPointer { ProximityUUID(hex32: $0) }
        // Both numbers valid, so that one wrong byte is all that can make the pid wrong; and both
        // at the limit.
        for digits in ["1234512345", "6553565535"] {
            let base = Array((Self.uuid + digits).utf8)
            #expect(Self.read(base) != nil)
            for position in 32..<42 {
                for byte in 0...255 {
                    var pid = base
                    pid[position] = UInt8(byte)
                    let read = Self.read(pid)
                    let expected = Self.reference(pid)
                    #expect(read.map { [$0.major, $0.minor] } == expected.map { [$0.0, $0.1] }, "byte \(byte) at \(position)")
                    if let read { #expect(read.uuid == uuid) }
                }
            }
        }
    }

    @Test(arguments: [
        ("0000000000", UInt16(0), UInt16(0)), ("6553565535", 65535, 65535), ("0000100002", 1, 2),
        ("1234554321", 12345, 54321), ("0999909999", 9999, 9999),
    ])
    func limitsAndPlaces(digits: String, major: UInt16, minor: UInt16) {
        let read = Self.read(Array((Self.uuid + digits).utf8))
        #expect(read?.major == major)
        #expect(read?.minor == minor)
    }

    @Test(arguments: ["6553665535", "6553565536", "9999999999", "12345-4321", "1234 54321", "١٢٣٤٥"])
    func outOfRangeOrNotDigitsIsNoPid(digits: String) {
        let bytes = Array((Self.uuid + digits).utf8)
        #expect(bytes.count != 42 || Self.read(bytes) == nil)
    }
}
