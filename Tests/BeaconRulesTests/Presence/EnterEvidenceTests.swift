@testable import BeaconRules
import Foundation
import Testing

/// Issue 33: evidence to enter. A stay starts only once `enterReadings` readings reached
/// `enterRSSI` within `enterWindow` (defaults 3 in 10 s), so a lone strong reading, which lifts
/// the smoothed value over the threshold for a moment, is no stay.
@Suite("Presence: evidence to enter")
struct EnterEvidenceTests {
    typealias R = PresenceRun
    let log = #"{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#

    @Test func aLoneStrongReadingFollowedByThreeMinutesOfWeakOnesIsNoStay() throws {
        let lines = [R.sighting(0, rssi: -60)] + (1...180).map { R.sighting(Double($0), rssi: -97) }
        let run = try R(campaigns: log, lines: lines)
        #expect(run.enters == 0 && run.records.isEmpty)
    }

    @Test func theThirdStrongReadingWithinTheWindowStartsTheStay() throws {
        // Strong and weak readings alternate a second apart: the smoothed value is over -85 dBm
        // from the second reading on, but the stay waits for the third strong one (line 5).
        let lines = [-70, -90, -70, -90, -70, -90].enumerated().map { R.sighting(Double($0.offset), rssi: $0.element) }
        let run = try R(campaigns: log, lines: lines)
        #expect(run.enters == 1)
        #expect(run.records.first?["event"]?.stringValue == "t:5+enter")
    }

    @Test func strongReadingsSpreadWiderThanTheWindowAreNoStay() throws {
        // Three strong readings 6 s apart: never three within 10 s, though the smoothed value of
        // the last window (-70, -90, -70) is over the threshold.
        let lines = [(0, -70), (1, -90), (6, -70), (7, -90), (12, -70)].map { R.sighting(Double($0.0), rssi: $0.1) }
        let run = try R(campaigns: log, lines: lines)
        #expect(run.enters == 0)
        let wider = try R(campaigns: log, lines: lines) { $0.enterWindowMilliseconds = 12_000 }
        #expect(wider.enters == 1)
    }

    @Test func settingsFileSetsTheEvidenceAndNamesMistakes() throws {
        let settings = try PresenceSettings(json: try JSONParser.parse(#"{"enterReadings": 5, "enterWindow": 4}"#), file: "p.json")
        #expect(settings.enterReadings == 5 && settings.enterWindowMilliseconds == 4_000)
        do { _ = try PresenceSettings(json: try JSONParser.parse(#"{"enterReadings": 0}"#), file: "p.json") } catch {
            #expect("\(error)".contains("`enterReadings`: expected an integer 1...1000, found 0"))
        }
    }

    @Test func oneReadingOfEvidenceOnTheCommandLineLetsTheSpikeEnterAgain() throws {
        let spike = Paths.fixture("presence/lone-spike.jsonl")
        let run = try CommandRunner.run(["replay", spike, "--enter-readings", "1", "--campaigns", Paths.campaigns, "--locales", Paths.locales])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""campaign":"museum-welcome""#))
        let bad = try CommandRunner.run(["replay", spike, "--enter-window=-1", "--campaigns", Paths.campaigns, "--locales", Paths.locales])
        #expect(bad.status == 2 && bad.stderr.contains("--enter-window: expected seconds >= 0"), "\(bad.stderr)")
    }
}
