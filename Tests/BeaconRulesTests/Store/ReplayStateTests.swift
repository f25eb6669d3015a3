import BeaconRulesStore
import Foundation
import Testing

@Suite("replay --state")
struct ReplayStateTests {
    let trace = "Tests/Fixtures/museum-day.jsonl"

    @Test func replayWritesTheGoldenRecordsWithAndWithoutState() throws {
        let golden = Paths.read(Paths.fixture("museum-day.records.jsonl"))
        let plain = try CommandRunner.run(["replay", trace])
        #expect(plain.status == 0)
        #expect(plain.stdout == golden)
        let withState = try CommandRunner.run(["replay", trace, "--state", Paths.temporaryDirectory() + "/state.db"])
        #expect(withState.status == 0)
        #expect(withState.stdout == golden)
    }

    @Test func aSecondReplayOfTheSameEventsAnswersTheSameAndChangesNothing() throws {
        let state = Paths.temporaryDirectory() + "/state.db"
        let first = try CommandRunner.run(["replay", trace, "--state", state])
        let before = try snapshot(state)
        let second = try CommandRunner.run(["replay", trace, "--state", state])
        #expect(second.stdout == first.stdout)
        #expect(try snapshot(state) == before)
        // 20 lines carry an id and are logged; the one without (`SOURCE:LINE`) is not.
        #expect(before.answers == 20)
    }

    @Test func suppressionCarriesOverToNewEventsInALaterRun() throws {
        let state = Paths.temporaryDirectory() + "/state.db"
        let enter = #"{"id":"ID","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"TIME"}"#
        let first = try CommandRunner.run(["replay", "--state", state], stdin: enter.replacingOccurrences(of: "ID", with: "a").replacingOccurrences(of: "TIME", with: "2026-06-05T10:00:00Z") + "\n")
        let second = try CommandRunner.run(["replay", "--state", state], stdin: enter.replacingOccurrences(of: "ID", with: "b").replacingOccurrences(of: "TIME", with: "2026-06-05T10:30:00Z") + "\n")
        #expect(first.stdout.contains("museum-welcome:anna:a"))
        #expect(!second.stdout.contains("museum-welcome"), "welcome is suppressed for an hour")
    }

    @Test func aStateFileThatDoesNotOpenExitsTwoBeforeProcessing() throws {
        let path = Paths.temporaryDirectory() + "/not-a-db"
        try "hello\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", trace, "--state", path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("not a beaconrules state file"))
    }
}
