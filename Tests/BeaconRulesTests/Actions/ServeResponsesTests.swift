import BeaconRules
import Foundation
import Testing

/// `serve` takes responses in the same stream as events, answers in APNs form with `--format
/// apns`, and keeps the funnel in its state file for `report`.
@Suite("serve: responses")
struct ServeResponsesTests {
    @Test func responsesOnServeAreCountedInTheStateThatReportReads() async throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ResponseTests.campaign.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let b = ResponseTests.beacon
        let lines = [
            #"{"id":"e1","device":"d1","type":"enter","beacon":"\#(b)","time":"2026-05-10T16:00:00Z","locale":"en"}"#,
            #"{"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"tell","time":"2026-05-10T16:02:00Z"}"#,
            #"{"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"tell","time":"2026-05-10T16:02:00Z"}"#,
            #"{"type":"response","device":"d1","notification":"offer:d1:missing","action":"present","time":"2026-05-10T16:02:00Z"}"#,
        ]
        let server = try await ServerProcess.start(["--campaigns", dir + "/c.json", "--state", dir + "/s.db", "--format", "apns"])
        let replies = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        try #require(replies.count == 4)
        #expect(replies[0].hasPrefix(#"{"ok":true,"event":"e1","records":[{"aps":{"alert":"#))
        #expect(replies[1].contains(#""kind":"followUp""#))
        #expect(replies[2] == replies[1])
        #expect(replies[3].hasPrefix(#"{"ok":false,"line":4"#) && replies[3].contains("offer:d1:missing"))

        let report = try CommandRunner.run(["report", "--state", dir + "/s.db", "--json"])
        let funnel = try JSONParser.parse(report.stdout)["funnels"]?.arrayElements?.first?.value
        #expect(funnel?["delivered"]?.integerValue == 1)
        #expect(funnel?["clicked"]?.integerValue == 1)
        #expect(funnel?["clicks"]?["tell"]?.integerValue == 1)
    }
}
