@testable import BeaconRules
@testable import BeaconRulesPostgres
import Foundation
import Logging
import Testing

/// SPEC section 5's retention on a PostgreSQL state, as `RetentionTests` and
/// `RetentionCommandTests` check it on an SQLite file (the same helpers, the same expectations).
extension ServePostgresTests {
    static func store(_ database: String) async throws -> PostgresStateStore {
        let url = try PostgresCluster.shared().createDatabase(database)
        return try await PostgresStateStore(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
    }

    @Test func resendWithinTheAnswerRetentionGetsTheSameBytesAndAfterItIsApplied() async throws {
        let store = try await Self.store("retention_answers")
        defer { store.close() }
        // The rounds' one device and ids, read ahead of each round.
        let reads = TransactionReads(devices: ["d-1"], answers: ["e-1", "e-2"])
        try await RetentionTests().resendWithinRetentionGetsTheSameBytesAndAfterItIsApplied(store: store, log: store) { body in
            try await store.transaction(reading: reads, body, retry: { Issue.record("a round read what was not prepared") })
        }
        #expect(try await store.answers().map(\.event) == ["e-1", "e-2"])
    }

    @Test func forgettingSuppressionStateInTheDatabaseChangesNoRecord() async throws {
        let lines = RetentionTests.museumTrace()
        let keeping = RetentionTests.pipeline(try RetentionTests.museum, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: RetentionTests.hourLate)
        try RetentionTests.feed(lines, into: keeping)
        let store = try await Self.store("retention_firings")
        defer { store.close() }
        let forgetting = RetentionTests.pipeline(try RetentionTests.museum, store: store, log: NoAnswerLog(), retention: RetentionTests.hourLate)
        // A transaction per batch, as `serve` commits: the sweep sees what earlier ones wrote back.
        var start = 0
        while start < lines.count {
            let batch = Array(lines[start..<min(start + RetentionTests.Pipeline<PostgresStateStore, NoAnswerLog>.batchSize, lines.count)])
            let devices = batch.map { line in String(line[line.range(of: "\"device\":\"")!.upperBound...].prefix { $0 != "\"" }) }
            try await store.transaction(reading: TransactionReads(devices: devices), {
                try RetentionTests.feed(batch, into: forgetting, startingAt: start)
                try forgetting.forgetExpired(limit: .max)
            }, retry: { Issue.record("a batch read what was not prepared") })
            start += batch.count
        }
        RetentionTests.expectSameOutcomes(forgetting.output.outcomes, keeping.output.outcomes)
        #expect(try await store.firings().count < keeping.engine.engine.store.count)
    }

    @Test func serveOnPostgreSQLRefusesAResponseAfterTheWindow() async throws {
        let url = try PostgresCluster.shared().createDatabase("retention_window")
        let server = try await ServerProcess.start(["--campaigns", RetentionCommandTests.campaigns(), "--response-window", "1h", "--state", url])
        let replies = try await LineClient.exchange(port: server.port, lines: RetentionCommandTests.lines)
        await server.stop()
        #expect(replies.count == 2)
        #expect(replies.first?.contains("\"ok\":true") == true)
        #expect(replies.last?.contains("was delivered longer ago than the response window (1h)") == true, "\(replies)")
    }
}
