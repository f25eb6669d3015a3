@testable import BeaconRules
@testable import BeaconRulesPostgres
import Foundation
import Logging
import Testing

/// SPEC section 5's retention on a PostgreSQL state, as `RetentionTests` and
/// `RetentionCommandTests` check it on an SQLite file (the same helpers, the same expectations).
extension ServePostgresTests {
    static func store(_ database: String) throws -> PostgresStateStore {
        let url = try PostgresCluster.shared().createDatabase(database)
        return try PostgresStateStore(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
    }

    @Test func resendWithinTheAnswerRetentionGetsTheSameBytesAndAfterItIsApplied() throws {
        let store = try Self.store("retention_answers")
        defer { store.close() }
        try RetentionTests().resendWithinRetentionGetsTheSameBytesAndAfterItIsApplied(store: store, log: store, begin: store.begin, commit: store.commit)
        #expect(try store.answers().map(\.event) == ["e-1", "e-2"])
    }

    @Test func forgettingSuppressionStateInTheDatabaseChangesNoRecord() throws {
        let lines = RetentionTests.museumTrace()
        let keeping = RetentionTests.pipeline(try RetentionTests.museum, store: InMemorySuppressionStore(), log: NoAnswerLog(), retention: RetentionTests.hourLate)
        try RetentionTests.feed(lines, into: keeping)
        let store = try Self.store("retention_firings")
        defer { store.close() }
        let forgetting = RetentionTests.pipeline(try RetentionTests.museum, store: store, log: NoAnswerLog(), retention: RetentionTests.hourLate)
        // A transaction per batch, as `serve` commits: the sweep sees what earlier ones wrote back.
        try store.begin()
        try RetentionTests.feed(lines, into: forgetting) {
            try forgetting.forgetExpired(limit: .max)
            try store.commit()
            try store.begin()
        }
        try store.commit()
        RetentionTests.expectSameOutcomes(forgetting.output.outcomes, keeping.output.outcomes)
        #expect(try store.firings().count < keeping.engine.engine.store.count)
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
