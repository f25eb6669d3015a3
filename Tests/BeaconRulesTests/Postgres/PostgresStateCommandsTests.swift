import BeaconRules
import BeaconRulesStore
import Foundation
import Testing

/// `report`, `explain` and `state copy` take a PostgreSQL `--state` as they take an SQLite file:
/// one store factory (`StateLocation`) behind every `--state`. Each test has a time limit, as
/// `ServePostgresTests`' have.
@Suite("state commands: PostgreSQL", .postgresCluster, .timeLimit(.minutes(5)))
struct PostgresStateCommandsTests {
    static let responses = "Tests/Fixtures/seeds/xtremepush-custom-message-handling/responses.jsonl"

    /// `replay --state STATE` of the Xtremepush responses seed, which must pass.
    static func replayResponses(into state: String) throws {
        let replay = try CommandRunner.run(["replay", "--state", state, responses])
        #expect(replay.status == 0, "\(replay.stderr)")
    }

    @Test func reportOnADatabaseCountsWhatReportOnTheFileCounts() throws {
        let url = try PostgresCluster.shared().createDatabase("report_funnels")
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for state in [directory + "/s.db", url] { try Self.replayResponses(into: state) }
        let fromFile = try CommandRunner.run(["report", "--state", directory + "/s.db", "--json"])
        let fromDatabase = try CommandRunner.run(["report", "--state", url, "--json"])
        #expect(fromDatabase.status == 0, "\(fromDatabase.stderr)")
        #expect(try JSONParser.parse(fromDatabase.stdout)["funnels"]?.arrayElements?.isEmpty == false)
        #expect(fromDatabase.stdout == fromFile.stdout)
    }

    @Test func explainOnADatabaseSeesItsSuppressionAndChangesNothing() async throws {
        let url = try PostgresCluster.shared().createDatabase("explain_state")
        let replay = try CommandRunner.run(["replay", "--state", url], stdin: ExplainTests.event + "\n")
        #expect(replay.status == 0, "\(replay.stderr)")
        let before = try await postgresSnapshot(url)
        let later = ExplainTests.event.replacingOccurrences(of: "10:00:00+02:00", with: "10:30:00+02:00")
        try ExplainTests.expectSuppressedAndSentOnce(try CommandRunner.run(["explain", later, "--state", url]))
        #expect(try await postgresSnapshot(url) == before)
    }

    /// Under flicker control the presence layer's clock makes records for devices no line of the
    /// batch named: on a database such a batch reads what it did not prepare, is rolled back and
    /// runs again (`PostgresStateStore.transaction`), and the records are those of a state file.
    @Test func replayWithPresenceOnADatabaseRunsBatchesAgainAndWritesWhatAFileGives() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("replay_presence")
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = "Tests/Fixtures/museum-day.jsonl"
        let fromFile = try CommandRunner.run(["replay", "--presence", "--state", directory + "/s.db", trace])
        let fromDatabase = try CommandRunner.run(["replay", "--presence", "--state", url, trace])
        #expect(fromDatabase.status == fromFile.status, "\(fromDatabase.stderr)")
        #expect(fromDatabase.stderr == fromFile.stderr)
        #expect(!fromDatabase.stdout.isEmpty)
        #expect(fromDatabase.stdout == fromFile.stdout)
        // The batches run again were rolled back (the statistics count them as the backend exits).
        #expect(try await cluster.rolledBackTransactions(in: "replay_presence") > 0)
    }

    @Test func copyIntoADatabaseAndBackGivesTheSameRowsAndReport() throws {
        let url = try PostgresCluster.shared().createDatabase("copy_back")
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = directory + "/original.db", copy = directory + "/copy.db"
        try Self.replayResponses(into: original)

        let there = try CommandRunner.run(["state", "copy", "--from", original, "--to", url])
        #expect(there.status == 0, "\(there.stderr)")
        let back = try CommandRunner.run(["state", "copy", "--from", url, "--to", copy])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.hasPrefix("copied ") && back.stdout.hasSuffix(" to \(copy)\n"))

        #expect(try snapshot(copy) == snapshot(original))
        let report = try CommandRunner.run(["report", "--state", original])
        #expect(try CommandRunner.run(["report", "--state", copy]).stdout == report.stdout)
    }
}

/// `state copy` between two SQLite files, and what it refuses, with no database involved.
@Suite struct StateCopyTests {
    @Test func copyBetweenTwoFilesKeepsEveryAnswerAndFiring() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = directory + "/original.db", copy = directory + "/copy.db"
        try PostgresStateCommandsTests.replayResponses(into: original)
        let copied = try CommandRunner.run(["state", "copy", "--from", original, "--to", copy])
        #expect(copied.status == 0, "\(copied.stderr)")
        let rows = try snapshot(original)
        #expect(rows.answers > 0)
        #expect(try snapshot(copy) == rows)
    }

    @Test func copyIntoAFileThatHoldsAStateIsRefused() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = directory + "/original.db"
        try PostgresStateCommandsTests.replayResponses(into: original)
        let again = try CommandRunner.run(["state", "copy", "--from", original, "--to", original])
        #expect(again.status == 2)
        #expect(again.stderr.contains("already holds a state"))
    }

    @Test func copyFromAMissingFileIsRefusedAndCreatesNothing() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CommandRunner.run(["state", "copy", "--from", directory + "/typo.db", "--to", directory + "/copy.db"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("typo.db: no such state file"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/typo.db"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/copy.db"))
    }
}
