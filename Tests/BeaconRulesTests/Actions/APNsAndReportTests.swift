@testable import BeaconRules
import Foundation
import Testing

/// APNs payloads, and `replay` + `report` through the real binary.
struct APNsAndReportTests {
    @Test func apnsPayloadCarriesTheMCEFields() throws {
        var engine = try Harness.engine(ResponseTests.campaign)
        let record = engine.process(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en"))[0]
        let payload = try JSONParser.parse(record.apnsLine)
        #expect(payload["aps"]?["alert"]?["subtitle"]?.stringValue == "Today")
        #expect(payload["aps"]?["mutable-content"]?.integerValue == 1)
        #expect(payload["aps"]?["sound"]?.stringValue == "default")
        #expect(payload["category-actions"]?.arrayElements?.count == 3)
        #expect(payload["media-attachment"]?.stringValue == "https://cdn.example.com/a.jpg")
        #expect(payload["id"]?.stringValue == "offer:d1:e1")
    }

    @Test func plainCampaignsCarryTheirOKAndCancelAsADynamicCategory() throws {
        var engine = try Harness.engine(#"{"eid": "plain", "trigger": 1, "type": 1, "beacons": ["\#(ResponseTests.beacon)"], "content": {"subject": "Hi", "body": "there"}}"#)
        let record = engine.process(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z"))[0]
        let payload = try JSONParser.parse(record.apnsLine)
        #expect(payload["aps"]?["mutable-content"]?.integerValue == 1)
        #expect(payload["aps"]?["category"]?.stringValue == "plain.enter.en")
        #expect(payload["notification-action"]?["type"]?.stringValue == "openApp")
        let buttons = payload["category-actions"]?.arrayElements?.map(\.value) ?? []
        #expect(buttons.map { $0["identifier"]?.stringValue } == ["ok", "cancel"])
        #expect(buttons.map { $0["type"]?.stringValue } == ["openApp", "dismiss"])
        #expect(buttons.map { $0["foreground"] } == [.bool(true), .bool(false)])
        #expect(!record.jsonLine.contains("subtitle"))
    }

    @Test func okRunsItsConfirmActionAndStaysInTheBackgroundWhenActInForegroundIsFalse() throws {
        var engine = try Harness.engine(#"""
            {"eid": "s", "trigger": 1, "type": 1, "beacons": ["\#(ResponseTests.beacon)"],
             "content": {"url": "https://a.example/x", "payload": {"onEnter": {"confirmAction": "share", "actInForeground": false,
                         "en": {"title": "T", "message": "M", "okButtonTitle": "Share it", "cancelButtonTitle": "Nope"}}}}}
            """#)
        let record = engine.process(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", locale: "en"))[0]
        let ok = try JSONParser.parse(record.apnsLine)["category-actions"]?.arrayElements?.first?.value
        #expect(ok?["name"]?.stringValue == "Share it")
        #expect(ok?["type"]?.stringValue == "share")
        #expect(ok?["value"]?.stringValue == "https://a.example/x")
        #expect(ok?["foreground"] == .bool(false))
    }

    @Test func openWithAURLRunsURLAndTheAlertIsAStringWithoutATitle() throws {
        var engine = try Harness.engine(#"{"eid": "u", "trigger": 1, "type": 1, "beacons": ["\#(ResponseTests.beacon)"], "content": {"body": "Only a body", "url": "https://a.example/y"}, "sound": "chime.caf", "badge": 3}"#)
        let payload = try JSONParser.parse(engine.process(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z"))[0].apnsLine)
        #expect(payload["aps"]?["alert"]?.stringValue == "Only a body")
        #expect(payload["aps"]?["sound"]?.stringValue == "chime.caf")
        #expect(payload["aps"]?["badge"]?.integerValue == 3)
        let ok = payload["category-actions"]?.arrayElements?.first?.value
        #expect(ok?["type"]?.stringValue == "url")
        #expect(ok?["value"]?.stringValue == "https://a.example/y")
    }

    /// The Xtremepush seed through the real binary: `report` shows a message opened and not
    /// clicked apart from one clicked, and the state keeps it across runs.
    @Test func reportShowsOpenedAndClickedApart() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let replay = try CommandRunner.run(["replay", "--state", dir + "/s.db", "Tests/Fixtures/seeds/xtremepush-custom-message-handling/responses.jsonl"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains(#""data":{"articleId":"a-17"}"#))
        let report = try CommandRunner.run(["report", "--state", dir + "/s.db", "--json"])
        let funnels = try #require(try JSONParser.parse(report.stdout)["funnels"]?.arrayElements).map(\.value)
            .filter { $0["campaign"]?.stringValue == "museum-goodbye" }
        let counts = funnels.map { [$0["language"]?.stringValue ?? "", $0["opened"]?.compactText ?? "", $0["clicked"]?.compactText ?? ""] }
        #expect(counts == [["de", "1", "1"], ["en", "1", "0"]])
    }

    /// A fresh folder holding the response campaign as `c.json`; the caller removes it.
    private func campaignFolder() throws -> String {
        let dir = Paths.temporaryDirectory()
        try ResponseTests.campaign.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        return dir
    }

    @Test func replayWithResponsesThenReportCountsEachStateOnce() throws {
        let dir = try campaignFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let b = ResponseTests.beacon
        let trace = """
            {"id":"e1","device":"d1","type":"enter","beacon":"\(b)","time":"2026-05-10T16:00:00Z","locale":"en"}
            {"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"tell","time":"2026-05-10T16:02:00Z"}
            {"type":"response","device":"d1","notification":"offer:d1:e1","action":"present","time":"2026-05-10T16:01:00Z"}
            {"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"tell","time":"2026-05-10T16:02:00Z"}
            {"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"coupon","time":"2026-05-10T16:03:00Z"}
            {"type":"response","device":"d1","notification":"offer:d1:unknown","action":"click","time":"2026-05-10T16:03:00Z"}

            """
        try trace.write(toFile: dir + "/t.jsonl", atomically: true, encoding: .utf8)
        let replay = try CommandRunner.run(["replay", dir + "/t.jsonl", "--campaigns", dir + "/c.json", "--state", dir + "/s.db"])
        #expect(replay.status == 1)
        #expect(replay.stdout.contains(#""kind":"followUp""#))
        #expect(replay.stderr.contains(#""line":6"#) && replay.stderr.contains("offer:d1:unknown"))
        #expect(replay.stderr.contains("no handler"))

        let table = try CommandRunner.run(["report", "--state", dir + "/s.db"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("campaign"))
        #expect(table.stdout.contains("coupon=1 tell=1"))

        let json = try CommandRunner.run(["report", "--state", dir + "/s.db", "--json"])
        let funnel = try JSONParser.parse(json.stdout)["funnels"]?.arrayElements?.first?.value
        #expect(funnel?["delivered"]?.integerValue == 1)
        #expect(funnel?["presented"]?.integerValue == 1)
        #expect(funnel?["opened"]?.integerValue == 1)
        #expect(funnel?["clicked"]?.integerValue == 1)
        #expect(funnel?["unhandled"]?["coupon"]?.integerValue == 1)

        let apns = try CommandRunner.run(["replay", dir + "/t.jsonl", "--campaigns", dir + "/c.json", "--format", "apns"])
        #expect(apns.stdout.hasPrefix(#"{"aps":{"alert":{"title":"Offer","subtitle":"Today","body":"10% off"}"#))
    }

    /// `--no-responses`: the same records, every response line refused in its place (and the
    /// events after it still applied), and no delivery saved in the state file (`report` shows none).
    @Test func replayWithNoResponsesGivesTheSameRecordsAndRemembersNoDelivery() throws {
        let golden = try CommandRunner.run(["replay", "Tests/Fixtures/museum-day.jsonl", "--no-responses"])
        #expect(golden.status == 0)
        #expect(golden.stderr.isEmpty)
        #expect(golden.stdout == Paths.read(Paths.fixture("museum-day.records.jsonl")))

        let dir = try campaignFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let b = ResponseTests.beacon
        let e1 = #"{"id":"e1","device":"d1","type":"enter","beacon":"\#(b)","time":"2026-05-10T16:00:00Z","locale":"en"}"#
        let e2 = #"{"id":"e2","device":"d2","type":"enter","beacon":"\#(b)","time":"2026-05-10T16:05:00Z","locale":"en"}"#
        let response = #"{"type":"response","device":"d1","notification":"offer:d1:e1","action":"present","time":"2026-05-10T16:01:00Z"}"#
        try (e1 + "\n" + e2 + "\n").write(toFile: dir + "/events.jsonl", atomically: true, encoding: .utf8)
        try (e1 + "\n" + response + "\n" + e2 + "\n").write(toFile: dir + "/t.jsonl", atomically: true, encoding: .utf8)
        let plain = try CommandRunner.run(["replay", dir + "/events.jsonl", "--campaigns", dir + "/c.json"])
        let replay = try CommandRunner.run(["replay", dir + "/t.jsonl", "--campaigns", dir + "/c.json", "--state", dir + "/s.db", "--no-responses"])
        #expect(replay.status == 1)
        #expect(replay.stdout == plain.stdout)
        #expect(plain.stdout.split(separator: "\n").count == 2)
        let errors = replay.stderr.split(separator: "\n")
        #expect(errors.count == 1)
        #expect(errors.first?.contains(#""line":2"#) == true)
        #expect(errors.first?.contains("--no-responses") == true)

        let json = try CommandRunner.run(["report", "--state", dir + "/s.db", "--json"])
        #expect(json.status == 0)
        #expect(try JSONParser.parse(json.stdout)["funnels"]?.arrayElements?.isEmpty == true)
    }

    @Test func reportRefusesAMissingStateFile() throws {
        let result = try CommandRunner.run(["report", "--state", "/nonexistent/s.db"])
        #expect(result.status == 2)
    }
}
