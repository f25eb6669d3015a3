@testable import BeaconRules
import Testing

@Suite("RFC 3339 times")
struct TimestampTests {
    @Test(arguments: [
        ("2016-05-10T16:00:00Z", 1_462_896_000_000),
        ("2016-05-10T18:00:00+02:00", 1_462_896_000_000),
        ("2016-05-10T18:00:00+0200", 1_462_896_000_000),
        ("2016-05-10T18:00:00.000+0200", 1_462_896_000_000),
        ("2016-05-10T16:00:00.5Z", 1_462_896_000_500),
        ("2016-05-10T16:00:00.123456Z", 1_462_896_000_123),
        ("2016-05-10t16:00:00z", 1_462_896_000_000),
        ("1967-12-31T00:00:00Z", -63_244_800_000),
        ("2016-02-29T00:00:00-05:00", 1_456_722_000_000),
    ] as [(String, Int64)])
    func parsesZonesAndFractions(text: String, milliseconds: Int64) {
        #expect(Timestamp.parseRFC3339(text) == .time(Timestamp(milliseconds: milliseconds), hasZone: true))
    }

    @Test func missingZoneIsUTCButFlagged() {
        #expect(Timestamp.parseRFC3339("2015-04-16T14:34:22") == .time(.at("2015-04-16T14:34:22Z"), hasZone: false))
    }

    @Test func timeOfDayAloneIsRecognised() {
        #expect(Timestamp.parseRFC3339("14:34:22") == .timeOfDayOnly)
    }

    @Test(arguments: ["2016-13-01T00:00:00Z", "2015-02-29T00:00:00Z", "2016-05-10", "2016-05-10T25:00:00Z", "2016-05-10T16:00:00+2", "yesterday", "2016-05-10T16:00:00Zjunk"])
    func rejectsImpossibleOrIncompleteTimes(text: String) {
        guard case .invalid = Timestamp.parseRFC3339(text) else {
            Issue.record("\(text) should be invalid")
            return
        }
    }

    @Test func formatsUTCWithMillisecondsOnlyWhenNotZero() {
        #expect(Timestamp(milliseconds: 1_462_896_000_000).description == "2016-05-10T16:00:00Z")
        #expect(Timestamp(milliseconds: 1_462_896_000_250).description == "2016-05-10T16:00:00.250Z")
        #expect(Timestamp(milliseconds: -1).description == "1969-12-31T23:59:59.999Z")
    }

    @Test func roundTripsAcrossCenturies() {
        for ms in stride(from: Int64(-5_000_000_000_000), through: 5_000_000_000_000, by: 123_456_789_011) {
            let t = Timestamp(milliseconds: ms)
            #expect(Timestamp.parseRFC3339(t.description) == .time(t, hasZone: true))
        }
    }

    /// `Z` forms take a one-pass fast path; `+00:00` forms the general parse: both must agree.
    @Test func fastPathAgreesWithTheGeneralParse() {
        for ms in stride(from: Int64(-62_167_219_200_000), through: 253_402_300_799_999, by: 9_876_543_210_987) {
            let z = Timestamp(milliseconds: ms).description
            #expect(Timestamp.parseRFC3339(z) == Timestamp.parseRFC3339(String(z.dropLast()) + "+00:00"), "\(z)")
            #expect(Timestamp.parseRFC3339(z) == .time(Timestamp(milliseconds: ms), hasZone: true))
        }
        // Shaped like the fast path's input but wrong: the general parse says why.
        for bad in ["2016-02-30T00:00:00Z", "2016-05-10T24:00:00Z", "2016-05-10T16:60:00.000Z", "2016-05-1xT16:00:00Z", "2016-05-10T16:00:00,000Z", "2016-00-10T16:00:00Z"] {
            guard case .invalid = Timestamp.parseRFC3339(bad) else {
                Issue.record("\(bad) was accepted")
                continue
            }
        }
    }

    @Test func formatsYearsOutsideFourDigits() {
        #expect(Timestamp(milliseconds: -62_167_219_200_000).description == "0000-01-01T00:00:00Z")
        #expect(Timestamp(milliseconds: -62_167_219_200_001).description == "-0001-12-31T23:59:59.999Z")
        #expect(Timestamp(milliseconds: 253_402_300_799_999).description == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp(milliseconds: 253_402_300_800_000).description == "10000-01-01T00:00:00Z")
        #expect(Timestamp(milliseconds: 1_462_896_000_007).description == "2016-05-10T16:00:00.007Z")
        // Every digit of a year before -9999 (the sign, then at least four digits), and the
        // extremes of Int64 milliseconds within the room writers leave for a time.
        #expect(Timestamp(milliseconds: CivilTime.daysFromCivil(year: -10000, month: 1, day: 1) * 86_400_000).description == "-10000-01-01T00:00:00Z")
        for ms in [Int64.min, Int64.max] {
            #expect(Timestamp(milliseconds: ms).description.utf8.count <= Timestamp.longestRFC3339)
        }
    }
}

@Suite("Beacon ids")
struct BeaconIDTests {
    @Test func pidRoundTripsInLowerCase() throws {
        let id = try #require(BeaconID(pid: "7367672374000000FFFF0000FFFF00070733107331"))
        #expect(id.major == 7331)
        #expect(id.minor == 7331)
        #expect(id.description == "7367672374000000ffff0000ffff00070733107331")
    }

    @Test(arguments: ["7367672374000000ffff0000ffff0007073310733", "7367672374000000ffff0000ffff00070733199999", "7367672374000000ffff0000ffff000g0733107331", "7367672374000000ffff0000ffff0007073310733x"])
    func malformedPidsAreRefusedWithAReason(text: String) {
        #expect(BeaconID(pid: text) == nil)
        #expect(BeaconID.pidProblem(text) != nil)
    }

    /// UUID hex is checked eight digits at a time: every byte value at every position must be
    /// taken exactly when it is a hex digit, in either case, with its value.
    @Test func everyByteIsCheckedAsAHexDigit() {
        let base = Array("0123456789abcdefABCDEF0123456789".utf8)
        let expected = ProximityUUID(high: 0x0123_4567_89ab_cdef, low: 0xabcd_ef01_2345_6789)
        #expect(base.withUnsafeBufferPointer { ProximityUUID(hex32: $0) } == expected)
        for position in [0, 5, 7, 8, 15, 16, 23, 31] {
            for value in 0...255 {
                var text = base
                text[position] = UInt8(value)
                let digit: UInt64? = switch UInt8(value) {
                case 0x30...0x39: UInt64(value - 0x30)
                case 0x41...0x46: UInt64(value - 0x41 + 10)
                case 0x61...0x66: UInt64(value - 0x61 + 10)
                default: nil
                }
                let parsed = text.withUnsafeBufferPointer { ProximityUUID(hex32: $0) }
                guard let digit else {
                    #expect(parsed == nil, "byte \(value) at \(position)")
                    continue
                }
                let shift = UInt64(60 - 4 * (position % 16))
                var want = expected
                if position < 16 { want.high = want.high & ~(0xF << shift) | digit << shift } else { want.low = want.low & ~(0xF << shift) | digit << shift }
                #expect(parsed == want, "byte \(value) at \(position)")
            }
        }
    }

    @Test func beaconPatternsByLength() {
        #expect(BeaconPattern(entry: "73676723-7400-0000-ffff-0000ffff0007") == .proximityUUID(ProximityUUID(text: "7367672374000000ffff0000ffff0007")!))
        #expect(BeaconPattern(entry: "u33dc0cfsss0z1") == .geofence("u33dc0cfsss0z1"))
        #expect(BeaconPattern(entry: "short") == nil)
    }
}
