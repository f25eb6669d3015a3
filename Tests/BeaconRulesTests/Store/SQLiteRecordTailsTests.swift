@testable import BeaconRules
@testable import BeaconRulesStore
import Foundation
import Testing

/// The answer log keeps each record tail once (`SQLiteStateStore+RecordTails`): resends are
/// answered byte for byte, after a restart too, from answers stored with tail numbers and from
/// answers stored whole (by `replay --state`, and by versions before); tails no answer names go.
@Suite("SQLite record tails")
struct SQLiteRecordTailsTests {
    let directory = Paths.temporaryDirectory()
    let lines = MuseumTrace.devices(4, events: 25, prefix: "tails").flatMap { $0 }

    func count(_ path: String, _ sql: String) throws -> Int64 {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        return try db.integer(sql)
    }

    @Test func servedAnswersKeepTheirTailsOnceAndResendsGetTheSameBytesAfterARestart() async throws {
        let state = directory + "/state.db"
        var server = try await ServerProcess.start(["--state", state])
        let first = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        // Nearly every answer names tails; a tail is one per campaign, trigger and language.
        let encoded = try count(state, "SELECT count(*) FROM answered WHERE substr(records, 1, 1) = x'01'")
        #expect(encoded > Int64(lines.count / 2))
        let tails = try count(state, "SELECT count(*) FROM tail")
        #expect(tails > 0 && tails < encoded)
        server = try await ServerProcess.start(["--state", state])
        let resent = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(resent == first)

        // The stored answers read back whole, as a fresh file's `replay --state` keeps them.
        let reference = directory + "/reference.db"
        #expect(try CommandRunner.run(["replay", "--state", reference], stdin: lines.map { $0 + "\n" }.joined()).status == 0)
        let store = try SQLiteStateStore(path: state), whole = try SQLiteStateStore(path: reference)
        #expect(try store.answers().map(\.records) == whole.answers().map(\.records))
        #expect(try store.export().answers.map(\.records) == whole.export().answers.map(\.records))
        whole.close()

        // Every answer forgotten: no tail is named any more, and none is left.
        try store.begin()
        _ = try store.forgetAnswers(before: Timestamp(milliseconds: Int64.max / 2), limit: 100_000)
        try store.commit()
        #expect(store.heldAnswers == 0)
        store.close()
        #expect(try count(state, "SELECT count(*) FROM tail") == 0)
    }

    @Test func answersOfAnOldFileAreAnsweredByteForByte() async throws {
        // Answers stored whole, in a version 1 file, as versions before kept them all.
        let old = directory + "/old.db", fresh = directory + "/fresh.db"
        #expect(try CommandRunner.run(["replay", "--state", old], stdin: lines.map { $0 + "\n" }.joined()).status == 0)
        try SQLiteLedgerLayoutTests.makeVersionOne(old)
        let db = try SQLiteConnection(path: old)
        #expect(try db.integer("SELECT count(*) FROM answered WHERE substr(records, 1, 1) = x'7b'") > Int64(lines.count / 2))
        db.close()

        var server = try await ServerProcess.start(["--state", fresh])
        let processed = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        server = try await ServerProcess.start(["--state", old])
        let fromOldFile = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(fromOldFile == processed)
        #expect(try count(old, "PRAGMA user_version") == 5)
    }
}
