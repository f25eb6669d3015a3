@testable import BeaconRules
import Foundation
import Testing

/// Raw sightings to enter and exit: the filter, the thresholds with hysteresis, the exit timeout.
@Suite("Presence: sightings")
struct SightingTests {
    let log = #"{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#
    typealias R = PresenceRun

    @Test func sightingLineParsesWithRSSI() throws {
        let line = R.sighting(0, rssi: -71)
        let input = try Array(line.utf8).withUnsafeBufferPointer { try EventParser.parseInput(line: $0, fallbackID: "s:1") }
        guard case .sighting(let s, _) = input else { Issue.record("not a sighting"); return }
        #expect(s.rssi == -71 && s.device == "d-1" && s.id == "s:1")
    }

    @Test func theEnterExitParserStillRefusesSightingsWithItsMessage() {
        #expect(throws: EventError.self) { try EventParser.parse(line: R.sighting(0, rssi: -71), fallbackID: "x") }
        do { _ = try EventParser.parse(line: R.sighting(0, rssi: -71), fallbackID: "x") } catch {
            #expect(error.message.contains("\"sighting\" events are not accepted by this engine"))
        }
    }

    @Test(arguments: [
        (#""rssi":"loud""#, "field `rssi`: expected a signal strength in dBm"),
        (#""rssi":-300"#, "a number in -127...20 like -71, found -300"),
        (#""x":1"#, "missing field `rssi`"),
    ])
    func badRSSIIsRejectedWithWhatWasExpected(field: String, message: String) throws {
        let line = #"{"type":"sighting","device":"d","beacon":"7367672374000000ffff0000ffff00070733107331","time":0,"# + field + "}"
        let run = try R(campaigns: log, lines: [line])
        #expect(run.errors[1]?.contains(message) == true, "\(run.errors)")
    }

    @Test func flickeringSightingsGiveOneEnterAndOneExit() throws {
        // 2 minutes at about -70 dBm with drop-outs of up to 20 s and single readings 20 dB down.
        var lines: [String] = []
        var t = 0.0
        var k = 0
        while t < 120 {
            k += 1
            if k % 25 == 0 { t += 20; continue }
            lines.append(R.sighting(t, rssi: k % 7 == 0 ? -97 : -70 - k % 5))
            t += 0.5
        }
        let run = try R(campaigns: log, lines: lines)
        #expect(run.errors.isEmpty)
        #expect(run.enters == 1 && run.exits == 1)
        let exit = try #require(run.records.last)
        #expect(exit["trigger"]?.stringValue == "exit")
        // The id comes from the last qualifying sighting; fireDate is that sighting's time + 30 s.
        #expect(exit["event"]?.stringValue?.hasSuffix("+exit") == true)
        // The stay starts on the third reading at or over -85 dBm (the evidence to enter).
        #expect(run.records.first?["event"]?.stringValue == "t:3+enter")
    }

    @Test func signalBetweenTheThresholdsNeitherEntersNorEnds() throws {
        // Hysteresis: -89 dBm is below enterRSSI (-85) but above exitRSSI (-92).
        let weak = try R(campaigns: log, lines: (0..<40).map { R.sighting(Double($0), rssi: -89) })
        #expect(weak.enters == 0)
        let lines = (0..<10).map { R.sighting(Double($0), rssi: -70) } + (10..<100).map { R.sighting(Double($0), rssi: -89) }
        let run = try R(campaigns: log, lines: lines)
        #expect(run.enters == 1 && run.exits == 1)
        // Kept alive by the -89 readings until the last one (99 s), confirmed 30 s later.
        #expect(run.records.last?["fireDate"]?.stringValue == "2016-05-10T16:02:09Z")
    }

    @Test func oneLoudReadingAloneDoesNotEnter() throws {
        let run = try R(campaigns: log, lines: [R.sighting(0, rssi: -60), R.sighting(30, rssi: -95)])
        #expect(run.enters == 0)
    }

    @Test func settingsFileIsReadAndMistakesAreNamed() throws {
        let settings = try PresenceSettings(json: try JSONParser.parse(#"{"exitTimeout": 12, "enterRSSI": -75, "exitRSSI": -85}"#), file: "p.json")
        #expect(settings.exitTimeoutMilliseconds == 12_000 && settings.enterRSSI == -75 && settings.exitRSSI == -85)
        #expect(throws: PresenceSettingsError.self) { try PresenceSettings(json: try JSONParser.parse(#"{"exitTimout": 12}"#), file: "p.json") }
        do { _ = try PresenceSettings(json: try JSONParser.parse(#"{"enterRSSI": -95}"#), file: "p.json") } catch {
            #expect("\(error)".contains("exitRSSI (-92 dBm) is above enterRSSI (-95 dBm)"))
        }
    }

    @Test func dwellFieldIsDecodedAndRefusedOnExitOnlyCampaigns() throws {
        let campaigns = try Harness.campaigns(#"{"eid":"d","type":1,"trigger":1,"dwell":90,"beacons":[]}"#)
        #expect(campaigns[0].dwellMilliseconds == 90_000)
        #expect(throws: CampaignLoadError.self) { try Harness.campaigns(#"{"eid":"d","type":1,"trigger":2,"dwell":90,"beacons":[]}"#) }
    }
}

/// The real recorded scans in `Tests/Fixtures/starksm64`: the derived events stay few.
@Suite("Presence: recorded scans")
struct RecordedScanTests {
    static let files = ["FourScannersBeacon5Run1-2015-03-13", "FourScannersBeacon5Run2-2015-03-13"]

    @Test(arguments: files)
    func derivedEnterExitPerScannerAndBeaconStayFew(name: String) throws {
        let path = Paths.recordedScan(name)
        let result = try CommandRunner.run(["replay", "--input-format", "starksm64", path,
                                            "--campaigns", Paths.fixture("presence/starksm64-campaigns.json")])
        #expect(result.status == 0, "\(result.stderr)")
        var counts: [String: Int] = [:]
        var sightingsPerKey: [String: Int] = [:]
        for line in result.stdout.split(separator: "\n") {
            let record = try JSONParser.parse(String(line))
            guard record["campaign"]?.stringValue == "room-presence" else { continue }
            counts[record["device"]!.stringValue! + " " + record["trigger"]!.stringValue!, default: 0] += 1
            sightingsPerKey[record["device"]!.stringValue!, default: 0] += 1
        }
        // Four scanners, one carried beacon walked through the rooms: every scanner saw it, each
        // for one or two visits, and every enter has its exit; never the hundreds of pairs the raw
        // drop-outs would give.
        #expect(Set(counts.keys.map { String($0.split(separator: " ")[0]) }) == ["Room201", "Room202", "Room203", "Room204"])
        for scanner in ["Room201", "Room202", "Room203", "Room204"] {
            let enters = counts[scanner + " enter"] ?? 0
            #expect((1...2).contains(enters), "\(scanner): \(enters) enters")
            #expect(counts[scanner + " exit"] == enters)
        }
    }
}
