@testable import BeaconRules
import Foundation
import Testing

/// Issue 33: lateness is measured per device for what is per device, so the input of one device
/// after another decides as each device alone; where exclusive zones span devices (the beacon is
/// the subject), input must be in time order across them, within `maxLateness`.
@Suite("Presence: lateness per device")
struct LatenessPerDeviceTests {
    typealias R = PresenceRun
    let log = #"{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#

    /// Two minutes of a device's sightings from 16:00 (each with its own id): near the beacon for
    /// `inside` seconds, a 40 s drop-out from 50 s, then near again.
    static func device(_ name: String, inside: Double) -> [String] {
        stride(from: 0.0, to: 120, by: 1.5).filter { !(50..<90).contains($0) }.enumerated().map { i, t in
            let line = R.sighting(t, rssi: t < inside || t >= 90 ? -72 : -97, device: name)
            return line.replacingOccurrences(of: #"{"type""#, with: #"{"id":"\#(name)-\#(i)","type""#)
        }
    }

    func records(of device: String, in run: R) -> [JSONValue] {
        run.records.filter { $0["device"]?.stringValue == device }
    }

    @Test func devicesGivenOneAfterTheOtherDecideAsEachAlone() throws {
        let a = Self.device("d-a", inside: 40), b = Self.device("d-b", inside: 20)
        let together = try R(campaigns: log, lines: a + b)
        #expect(together.errors.isEmpty, "\(together.errors)")
        for (name, lines) in [("d-a", a), ("d-b", b)] {
            let alone = try R(campaigns: log, lines: lines)
            #expect(!alone.records.isEmpty)
            #expect(records(of: name, in: together) == alone.records, "\(name)")
        }
    }

    @Test func aDeviceBehindTheStreamIsLateOnlyAgainstItsOwnNewestEvent() throws {
        // d-b's first 44 s come after d-a's two minutes: d-b is behind, on its own time, and a d-b
        // sighting 48.5 s older than d-b's newest is late by d-b's own measure.
        let a = Self.device("d-a", inside: 40), b = Self.device("d-b", inside: 20).prefix(30)
        let run = try R(campaigns: log, lines: a + b + [R.sighting(10, rssi: -70, device: "d-b")])
        #expect(run.errors.count == 1, "\(run.errors)")
        let message = try #require(run.errors[a.count + b.count + 1])
        #expect(message.contains(#"33.5 s before the newest event time of device "d-b", 2016-05-10T16:00:43.500Z"#), "\(message)")
        #expect(message.contains("sort the device's input by time or raise --max-lateness"), "\(message)")
    }

    @Test func aDeviceInStepWithTheStreamIsLateAgainstTheStream() throws {
        // Time-sorted input of several devices is one stream, as before: lateness against the
        // newest event of all.
        let run = try R(campaigns: log, lines: [
            R.sighting(0, rssi: -70, device: "d-a"), R.sighting(0, rssi: -70, device: "d-b"),
            R.sighting(60, rssi: -70, device: "d-a"), R.sighting(30, rssi: -70, device: "d-b"),
        ])
        #expect(run.errors[4]?.contains("30 s before the newest event time 2016-05-10T16:01:00Z") == true, "\(run.errors)")
    }

    /// Two scanners hear one carried beacon: scanner-1's file, then scanner-2's, over the same minute.
    static func scanners() -> (one: [String], two: [String]) {
        func scanner(_ name: String, rssi: Int) -> [String] {
            (0..<60).map { s in
                R.sighting(Double(s) + (name == "scanner-1" ? 0 : 0.5), rssi: rssi, device: name)
                    .replacingOccurrences(of: #"{"type""#, with: #"{"id":"\#(name)-\#(s)","type""#)
            }
        }
        return (scanner("scanner-1", rssi: -75), scanner("scanner-2", rssi: -88))
    }

    @Test func exclusiveZonesByBeaconRejectScannersOutOfTimeOrderSayingWhatToDo() throws {
        let (one, two) = Self.scanners()
        let run = try R(campaigns: log, lines: one + two) { $0.exclusiveZones = .beacon }
        #expect(run.errors.count > 0)
        let message = try #require(run.errors[one.count + 1])
        #expect(message.contains("exclusive zones by beacon compare the scanners"), "\(message)")
        #expect(message.contains("sort it by time") && message.contains("raise --max-lateness"), "\(message)")
    }

    @Test func exclusiveZonesByBeaconOrderScannersFilesWithinALatenessThatSpansThem() throws {
        let (one, two) = Self.scanners()
        let merged = zip(one, two).flatMap { [$0, $1] }
        let sorted = try R(campaigns: log, lines: merged) { $0.exclusiveZones = .beacon }
        let files = try R(campaigns: log, lines: one + two) {
            $0.exclusiveZones = .beacon
            $0.maxLatenessMilliseconds = 60_000
        }
        #expect(files.errors.isEmpty, "\(files.errors)")
        #expect(!sorted.records.isEmpty)
        #expect(files.records == sorted.records)
    }

    @Test func onAServerTheClockSaysWhatIsLateForEveryDevice() throws {
        var layer = PresenceLayer(settings: PresenceSettings(), campaigns: try CampaignSet(Harness.campaigns(log)))
        layer.advance(to: 1_462_896_060_000)
        let line = R.sighting(0, rssi: -70, device: "new-device")
        let input = try Array(line.utf8).withUnsafeBufferPointer { try EventParser.parsePresenceInput(line: $0, fallbackID: "x") }
        #expect(throws: PresenceError.self) { try layer.add(input) }
        do { try layer.add(input) } catch {
            #expect(error.message.contains("1 min before the newest event time 2016-05-10T16:01:00Z"), "\(error.message)")
        }
    }
}
