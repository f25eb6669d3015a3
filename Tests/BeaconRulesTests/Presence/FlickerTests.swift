@testable import BeaconRules
import Testing

/// Flicker control of given enter/exit streams, dwell and withdrawal (issue 6).
@Suite("Presence: given enter/exit streams")
struct FlickerTests {
    /// Silent records on enter and exit: one per event that reaches the rules.
    let log = #"{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#
    typealias R = PresenceRun

    @Test func exitThenEnterWithinTheTimeoutIsOneStay() throws {
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:05:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:05:20Z", id: "c"),
            R.given("exit", "2016-05-10T16:10:00Z", id: "d"),
        ])
        #expect(run.errors.isEmpty)
        #expect(run.field("trigger", of: run.records) == ["enter", "exit"])
        #expect(run.field("event", of: run.records) == ["a", "d"])
        // The exit record waits for the confirmation: fireDate is the exit plus exitTimeout.
        #expect(run.field("fireDate", of: run.records) == ["2016-05-10T16:00:00Z", "2016-05-10T16:10:30Z"])
    }

    @Test func reEnterAfterTheTimeoutIsASecondStay() throws {
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:05:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:05:31Z", id: "c"),
        ])
        #expect(run.field("event", of: run.records) == ["a", "b", "c"])
        #expect(run.field("fireDate", of: run.records)[1] == "2016-05-10T16:05:30Z")
    }

    @Test func duplicateEnterWhileInsideIsIgnored() throws {
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("enter", "2016-05-10T16:01:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:09:00Z", id: "c"),
        ])
        #expect(run.field("event", of: run.records) == ["a"])
        #expect(run.errors.isEmpty)
    }

    @Test func exitWithoutEnterIsToleratedAndEndsTheUnseenStayOnce() throws {
        let run = try R(campaigns: log, lines: [
            R.given("exit", "2016-05-10T16:00:00Z", id: "x"),
            R.given("exit", "2016-05-10T16:00:10Z", id: "y"),
            R.given("exit", "2016-05-10T16:02:00Z", id: "z"),
        ])
        #expect(run.errors.isEmpty)
        #expect(run.field("event", of: run.records) == ["x"])
        #expect(run.field("fireDate", of: run.records) == ["2016-05-10T16:00:30Z"])
    }

    @Test func withoutFlickerControlGivenEventsPassStraightThrough() throws {
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:05:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:05:20Z", id: "c"),
        ]) { $0.flickerControl = false }
        #expect(run.field("event", of: run.records) == ["a", "b", "c"])
        #expect(run.field("fireDate", of: run.records)[1] == "2016-05-10T16:05:00Z")
    }

    let dwell = #"[{"eid":"dwell","type":1,"trigger":1,"dwell":300,"content":{"subject":"Still here"},"beacons":["7367672374000000ffff0000ffff00070733107331"]},"# +
        #"{"eid":"hello","type":1,"trigger":1,"content":{"subject":"Hi"},"beacons":["7367672374000000ffff0000ffff00070733107331"]}]"#

    @Test func dwellFiresOnceTheDeviceStayedThatLong() throws {
        let run = try R(campaigns: dwell, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:02:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:02:10Z", id: "c"), // flicker: the stay goes on
            R.given("exit", "2016-05-10T16:20:00Z", id: "d"),
        ])
        #expect(run.field("campaign", of: run.records) == ["hello", "dwell"])
        let dwellRecord = run.records[1]
        #expect(dwellRecord["fireDate"]?.stringValue == "2016-05-10T16:05:00Z")
        #expect(dwellRecord["event"]?.stringValue == "a+dwell300")
        #expect(dwellRecord["trigger"]?.stringValue == "enter")
    }

    @Test func dwellIsCancelledWhenTheDeviceLeavesFirst() throws {
        let run = try R(campaigns: dwell, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:04:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:30:00Z", id: "c"),
            R.given("exit", "2016-05-10T16:31:00Z", id: "d"),
        ])
        #expect(run.field("campaign", of: run.records) == ["hello", "hello"])
    }

    @Test func dwellDecidedAtEndOfInputOnlyIfTheStayLastedThatLong() throws {
        // No exit given: at end of input the stay is open; the dwell (due 16:05) is after the last
        // event, and an open stay with no more input resolves nothing beyond last + exitTimeout.
        let run = try R(campaigns: dwell, lines: [R.given("enter", "2016-05-10T16:00:00Z", id: "a")])
        #expect(run.field("campaign", of: run.records) == ["hello"])
    }

    let delayed = #"{"eid":"later","type":1,"trigger":1,"delay":120,"content":{"subject":"Two minutes in"},"beacons":["7367672374000000ffff0000ffff00070733107331"]}"#

    @Test func delayedEnterRecordIsWithdrawnWhenTheDeviceLeavesBeforeItsFireDate() throws {
        let run = try R(campaigns: delayed, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:01:00Z", id: "b"),
        ])
        let withdrawn = run.kind("withdrawn")
        #expect(run.kind("notification").count == 1)
        #expect(withdrawn.count == 1)
        #expect(withdrawn.first?["id"]?.stringValue == "later:d-1:a")
        #expect(withdrawn.first?["event"]?.stringValue == "b")
        #expect(withdrawn.first?["fireDate"]?.stringValue == "2016-05-10T16:02:00Z")
        #expect(withdrawn.first?["withdrawnAt"]?.stringValue == "2016-05-10T16:01:30Z")
    }

    @Test func delayedEnterRecordStandsWhenTheDeviceLeavesAfterItsFireDate() throws {
        let run = try R(campaigns: delayed, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:01:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:01:10Z", id: "c"), // flicker, not a departure
            R.given("exit", "2016-05-10T16:03:00Z", id: "d"),
        ])
        #expect(run.kind("withdrawn").isEmpty)
        #expect(run.kind("notification").count == 1)
    }

    @Test func lateEventWithinMaxLatenessIsUsedInTimeOrder() throws {
        // The enter at 16:05:10 arrives after an event of 16:05:12, 2 s late (allowed: 5 s).
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("exit", "2016-05-10T16:05:00Z", id: "b"),
            R.given("enter", "2016-05-10T16:05:12Z", id: "other", device: "d-2"),
            R.given("enter", "2016-05-10T16:05:10Z", id: "c"),
        ])
        #expect(run.errors.isEmpty)
        // d-1's exit and re-enter collapse: d-1 has one enter and its exit at end of input.
        #expect(run.records.filter { $0["device"]?.stringValue == "d-1" }.count == 1)
    }

    @Test func lateEventBeyondMaxLatenessIsRejectedWithAMessage() throws {
        let run = try R(campaigns: log, lines: [
            R.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            R.given("enter", "2016-05-10T16:01:00Z", id: "b", device: "d-2"),
            R.given("exit", "2016-05-10T16:00:30Z", id: "c"),
        ]) { $0.maxLatenessMilliseconds = 10_000 }
        #expect(run.errors.count == 1)
        let message = try #require(run.errors[3])
        #expect(message.contains("30 s before the newest event time 2016-05-10T16:01:00Z"))
        #expect(message.contains("allowed lateness of 10 s"))
        #expect(message.contains("--max-lateness"))
        // The rejected exit is not used: both stays are still open at the end, with no exit.
        #expect(run.field("event", of: run.records) == ["a", "b"])
    }
}

/// The presence state as bytes, as `serve` keeps it in its state file.
@Suite("Presence: snapshot")
struct PresenceSnapshotTests {
    @Test func restoredEngineCarriesOnExactlyAsOneThatNeverStopped() throws {
        let campaigns = #"[{"eid":"log","type":4,"trigger":3,"beacons":["7367672374000000ffff0000ffff00070733107331"]},"# +
            #"{"eid":"later","type":1,"trigger":1,"delay":120,"content":{"subject":"S"},"beacons":["7367672374000000ffff0000ffff00070733107331"]},"# +
            #"{"eid":"dwell","type":1,"trigger":1,"dwell":60,"content":{"subject":"D"},"beacons":["7367672374000000ffff0000ffff00070733107331"]}]"#
        let lines = (0..<30).map { PresenceRun.sighting(Double($0), rssi: -70, device: "s") } + [
            PresenceRun.given("enter", "2016-05-10T16:00:00Z", id: "a"),
            PresenceRun.given("exit", "2016-05-10T16:00:40Z", id: "b"),
        ] + (31..<50).map { PresenceRun.sighting(Double($0), rssi: -72, device: "s") } + [
            PresenceRun.given("enter", "2016-05-10T16:00:55Z", id: "c"),
            PresenceRun.given("exit", "2016-05-10T16:01:30Z", id: "d"),
        ]
        var settings = PresenceSettings()
        settings.maxLatenessMilliseconds = 60_000
        func run(splitAt split: Int?) throws -> String {
            try PresenceRun.replayRestarting(campaigns: campaigns, settings: settings, lines: lines, splitAt: split)
        }
        let whole = try run(splitAt: nil)
        #expect(whole.contains("\"kind\":\"withdrawn\"") && whole.contains("+dwell60"))
        for split in [5, 30, 31, 45, 52] { #expect(try run(splitAt: split) == whole, "split at \(split)") }
    }
}
