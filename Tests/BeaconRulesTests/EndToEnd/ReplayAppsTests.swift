import Foundation
import Testing

/// `replay --apps`: every line decided by the app its `app` member names.
@Suite("replay --apps")
struct ReplayAppsTests {
    @Test func theMuseumDayTaggedWithItsAppGivesTheGoldenRecordsByteForByte() throws {
        let folder = Paths.temporaryDirectory()
        let tagged = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("{") ? #"{"app":"museum","# + line.dropFirst() : String(line)
        }.joined(separator: "\n")
        try tagged.write(toFile: folder + "/museum-day.jsonl", atomically: true, encoding: .utf8)
        let replay = try CommandRunner.run(["replay", "--apps", Paths.fixture("apps/apps.json"), folder + "/museum-day.jsonl"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let golden = Paths.read(Paths.fixture("museum-day.records.jsonl"))
        #expect(replay.stdout.replacingOccurrences(of: folder + "/museum-day.jsonl", with: "Tests/Fixtures/museum-day.jsonl") == golden)
    }

    @Test func theSameEventInTwoAppsIsTwoEventsAndALineWithoutAKnownAppIsRejected() throws {
        let replay = try CommandRunner.run(["replay", "--apps", Paths.fixture("apps/apps.json"), "Tests/Fixtures/apps/two-apps.jsonl"])
        #expect(replay.status == 1)
        let records = replay.stdout.split(separator: "\n")
        #expect(records.contains { $0.contains(#""id":"museum-welcome:anna:ev-01""#) })
        #expect(records.contains { $0.contains(#""id":"gallery-hello:anna:ev-01""#) })
        #expect(records.contains { $0.contains(#""id":"gallery-hello:ben:Tests/Fixtures/apps/two-apps.jsonl:3""#) })
        let errors = replay.stderr.split(separator: "\n")
        #expect(errors.count == 2)
        #expect(errors.first?.contains(#""line":4,"message":"missing `app`"#) == true, "\(replay.stderr)")
        #expect(errors.last?.contains(#""line":5,"message":"unknown app \"cafe\""#) == true, "\(replay.stderr)")
    }

    @Test func campaignsOrStateWithAppsAreRefused() throws {
        let replay = try CommandRunner.run(["replay", "--apps", Paths.fixture("apps/apps.json"), "--campaigns", "Campaigns"], stdin: "")
        #expect(replay.status == 2)
        #expect(replay.stderr.contains("--apps gives each app its campaigns"))
    }
}
