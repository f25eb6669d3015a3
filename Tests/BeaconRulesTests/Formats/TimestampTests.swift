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

    @Test func beaconPatternsByLength() {
        #expect(BeaconPattern(entry: "73676723-7400-0000-ffff-0000ffff0007") == .proximityUUID(ProximityUUID(text: "7367672374000000ffff0000ffff0007")!))
        #expect(BeaconPattern(entry: "u33dc0cfsss0z1") == .geofence("u33dc0cfsss0z1"))
        #expect(BeaconPattern(entry: "short") == nil)
    }
}
