import Foundation
import Testing

/// `replay` and `timeline` with the presence options, through the real binary.
@Suite("Presence: command line")
struct PresenceCommandTests {
    let campaign = #"{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#

    func write(_ text: String, _ name: String, in folder: String) -> String {
        let path = folder + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    var flicker: String {
        [PresenceRun.given("enter", "2016-05-10T16:00:00Z", id: "a"),
         PresenceRun.given("exit", "2016-05-10T16:05:00Z", id: "b"),
         PresenceRun.given("enter", "2016-05-10T16:05:20Z", id: "c"),
         PresenceRun.given("exit", "2016-05-10T16:10:00Z", id: "d")].joined(separator: "\n") + "\n"
    }

    @Test func presenceFlagCollapsesFlickerAndWithoutItEveryEdgeFires() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let campaigns = write(campaign, "log.json", in: folder)
        let with = try CommandRunner.run(["replay", "--presence", "--campaigns", campaigns, "--locales", Paths.locales], stdin: flicker)
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.stdout.split(separator: "\n").count == 2)
        #expect(with.stdout.contains(#""event":"d","trigger":"exit""#) && with.stdout.contains(#""fireDate":"2016-05-10T16:10:30Z""#))
        let without = try CommandRunner.run(["replay", "--campaigns", campaigns, "--locales", Paths.locales], stdin: flicker)
        #expect(without.stdout.split(separator: "\n").count == 4)
    }

    @Test func badSettingsFileStopsWithExitTwoNamingFileLineAndColumn() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let campaigns = write(campaign, "log.json", in: folder)
        let settings = write("{\n  \"exitTimout\": 12\n}\n", "presence.json", in: folder)
        let result = try CommandRunner.run(["replay", "--presence-settings", settings, "--campaigns", campaigns, "--locales", Paths.locales], stdin: flicker)
        #expect(result.status == 2)
        #expect(result.stderr.contains("presence.json:2:3: unknown setting `exitTimout`"), "\(result.stderr)")
    }

    @Test func eventBeyondMaxLatenessIsAJSONErrorAndExitOne() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let campaigns = write(campaign, "log.json", in: folder)
        let late = flicker + PresenceRun.given("enter", "2016-05-10T16:09:00Z", id: "late") + "\n"
        let result = try CommandRunner.run(["replay", "--presence", "--max-lateness", "30", "--campaigns", campaigns, "--locales", Paths.locales], stdin: late)
        #expect(result.status == 1)
        #expect(result.stderr.contains(#""line":5,"message":"event time 2016-05-10T16:09:00Z is 1 min before the newest event time"#), "\(result.stderr)")
    }

    @Test func timelineDrawsOneRowPerScannerAndBeaconWithRecords() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let svg = folder + "/t.svg"
        let trace = Paths.recordedScan("FourScannersBeacon5Run1-2015-03-13")
        let result = try CommandRunner.run(["timeline", "--input-format", "starksm64", trace,
                                            "--campaigns", Paths.fixture("presence/starksm64-campaigns.json"), "-o", svg])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("timeline: 1 subject in 4 rooms, 4 rows,"), "\(result.stderr)")
        let picture = Paths.read(svg)
        // The subject's row (exclusive zones, the default of recorded scans): the carried beacon
        // walks 201 -> 202 -> 203 -> 204 and back, one room at a time.
        let rooms = picture.split(separator: "<title>").dropFirst().map { $0.prefix(8) }.filter { $0.hasPrefix("Room") }
        #expect(rooms == ["Room201 ", "Room202 ", "Room203 ", "Room204 ", "Room201 "])
        #expect(picture.hasPrefix("<svg"))
        for room in ["Room201", "Room202", "Room203", "Room204"] { #expect(picture.contains(room)) }
        #expect(picture.contains("room-presence enter at"))
    }
}
