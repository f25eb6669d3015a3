@testable import BeaconRules
import Foundation
import Testing

/// `beaconrules explain`: fired, or the first rule that stopped each campaign.
@Suite struct ExplainTests {
    static let pid = XMLSupport.pid1
    static let campaigns = """
        [{"eid": "exit-only", "type": 1, "trigger": 2, "beacons": ["\(pid)"]},
         {"eid": "elsewhere", "type": 1, "trigger": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000099"]},
         {"eid": "later", "type": 1, "trigger": 1, "beacons": ["\(pid)"], "timeframes": [{"start": "2016-05-11T12:15:00Z", "end": "2016-05-11T18:00:00Z"}]},
         {"eid": "over", "type": 1, "trigger": 1, "beacons": ["\(pid)"], "deliverAt": "2016-05-10T12:00:00Z"},
         {"eid": "quiet", "type": 1, "trigger": 1, "beacons": ["\(pid)"], "suppressionTime": 900},
         {"eid": "once", "type": 1, "trigger": 1, "beacons": ["\(pid)"], "sendOnlyOnce": true},
         {"eid": "twin", "type": 1, "trigger": 1, "beacons": ["\(pid)"]},
         {"eid": "TWIN", "type": 1, "trigger": 1, "beacons": ["\(pid)"]}]
        """

    @Test func everyRuleThatStopsACampaignIsNamed() throws {
        var engine = try Harness.engine(Self.campaigns)
        let first = Harness.event(beacon: Self.pid, at: "2016-05-10T16:00:00Z", id: "e-1")
        _ = engine.process(first)
        let second = Harness.event(beacon: Self.pid, at: "2016-05-10T16:05:00Z", id: "e-2")
        let lines = engine.explain(second).map { "\($0.campaign.eid): \($0.verdict.explanation)" }
        #expect(lines == [
            "exit-only: trigger is exit only",
            "elsewhere: beacon does not match",
            "later: outside timeframes (next opens 2016-05-11T12:15:00Z)",
            "over: deliverAt has passed (2016-05-10T12:00:00Z)",
            "quiet: suppressed until 2016-05-10T16:15:00Z",
            "once: already sent once",
            "twin: fired (fireDate 2016-05-10T16:05:00Z)",
            "TWIN: an earlier action with the same eid fires for this event (actions sharing an eid are one campaign)",
        ])
        let fresh = try Harness.engine(Self.campaigns).explain(Harness.event(beacon: Self.pid, at: "2016-05-10T16:00:00Z"))
        #expect(fresh.map(\.verdict.code) == ["triggerMismatch", "beaconDoesNotMatch", "outsideTimeframes", "deliverAtPassed", "fired", "fired", "fired", "sharedEidFiredFirst"])
    }

    @Test func explainDoesNotChangeTheState() throws {
        let engine = try Harness.engine(Self.campaigns)
        let event = Harness.event(beacon: Self.pid, at: "2016-05-10T16:00:00Z")
        #expect(engine.explain(event).map(\.verdict) == engine.explain(event).map(\.verdict))
        #expect(engine.store.count == 0)
    }

    static let event = #"{"id":"e1","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00+02:00","locale":"de-DE"}"#

    @Test func theRealBinaryPrintsOneLinePerCampaign() throws {
        let result = try CommandRunner.run(["explain", Self.event])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            museum-welcome: fired (fireDate 2026-06-05T08:00:00Z, language de)
            museum-goodbye: trigger is exit only
            museum-night-tour: fired (fireDate 2026-06-05T18:00:00Z, language none)
            museum-audio-guide: beacon does not match
            shop-coupon: beacon does not match
            cafe-happy-hour: beacon does not match
            visit-counter: fired (fireDate 2026-06-05T08:00:00Z, silent)

            """)
    }

    @Test func xmlCampaignsExplainTheSameAsJSON() throws {
        let json = try CommandRunner.run(["explain", Self.event])
        let xml = try CommandRunner.run(["explain", Self.event, "--campaigns", Paths.fixture("xml/museum")])
        #expect(xml.stdout == json.stdout)
    }

    /// `explain`'s answer for `event` half an hour later, on the state a replay of `event` left:
    /// the welcome suppressed, the night tour already sent once.
    static func expectSuppressedAndSentOnce(_ result: CommandResult) throws {
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "museum-welcome: suppressed until 2026-06-05T09:00:00Z")
        #expect(lines.contains("museum-night-tour: already sent once"))
    }

    @Test func stateFromReplayIsExplained() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/museum.state"
        let replay = try CommandRunner.run(["replay", "--state", state], stdin: Self.event + "\n")
        #expect(replay.status == 0)
        let later = Self.event.replacingOccurrences(of: "10:00:00+02:00", with: "10:30:00+02:00")
        let result = try CommandRunner.run(["explain", later, "--state", state])
        try Self.expectSuppressedAndSentOnce(result)
        // explain reads the state and never writes it.
        #expect(try CommandRunner.run(["explain", later, "--state", state]).stdout == result.stdout)
    }

    @Test func jsonOutputHasOneObjectPerCampaign() throws {
        let result = try CommandRunner.run(["explain", Self.event, "--json"])
        #expect(result.status == 0)
        let objects = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(objects.count == 7)
        #expect(objects[0]["verdict"] == .string("fired"))
        #expect(objects[0]["fireDate"] == .string("2026-06-05T08:00:00Z"))
        #expect(objects[0]["language"] == .string("de"))
        #expect(objects[1]["verdict"] == .string("triggerMismatch"))
        #expect(objects[1]["message"] == .string("trigger is exit only"))
        #expect(objects[0]["file"] == .string("Campaigns/museum/01-visit.json"))
    }

    @Test func eventCanComeFromStdinOrAFile() throws {
        let fromStdin = try CommandRunner.run(["explain", "-"], stdin: "\n" + Self.event + "\n")
        let fromArgument = try CommandRunner.run(["explain", Self.event])
        #expect(fromStdin.stdout == fromArgument.stdout)
        let fromFile = try CommandRunner.run(["explain", "Tests/Fixtures/museum-day.jsonl"])
        #expect(fromFile.status == 0)
        #expect(fromFile.stdout.hasPrefix("museum-welcome: fired (fireDate 2026-06-05T08:00:00Z, language de)"))
    }

    @Test func anEventThatDoesNotParseIsBadUsage() throws {
        let result = try CommandRunner.run(["explain", #"{"type":"enter","device":"d"}"#])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("the event does not parse"))
    }
}
