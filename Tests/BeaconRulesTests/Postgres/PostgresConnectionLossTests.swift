@testable import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import Testing

/// `serve` whose connection to the database is ended by the server (as a restart, a failover or
/// `pg_terminate_backend` ends it): between two transactions and under a query. Each line is
/// answered, an error for what was not saved and never an ok, and `serve` connects again.
extension ServePostgresTests {
    /// The connection ended while `serve` was idle: the next transaction must not run on it (a
    /// statement written to a closed connection is never answered) but on a new one. Before the
    /// fix its `BEGIN` went to the closed connection and `serve` answered nothing more.
    @Test func aConnectionEndedBetweenTransactionsIsReplacedAndTheNextLinesAnswered() async throws {
        let cluster = try PostgresCluster.shared()
        let database = "ended_idle"
        let url = try cluster.createDatabase(database)
        let directory = Paths.temporaryDirectory()
        let lines = MuseumTrace.interleave(MuseumTrace.devices(2, events: 6, prefix: "pg7"))
        let oracle = try ReplayOracle(lines: lines, directory: directory)
        let server = try await ServerProcess.start(["--state", url])

        #expect(try await LineClient.exchange(port: server.port, lines: [lines[0]]) == [try #require(oracle.replies[try eventID(lines[0])])])
        try await cluster.endBackends(of: database)
        // Time for serve to read the end of its connection (the statement that follows must
        // not be written to it); the replies below must be right however long this is.
        try await Task.sleep(for: .milliseconds(300))
        for line in lines.dropFirst() {
            let reply = try await Self.answeredOK(line, port: server.port)
            #expect(reply == oracle.replies[try eventID(line)])
        }
        #expect(server.process.isRunning)
        await server.stop()
    }

    /// The connection ended under a query (the transaction waits for a device's lock that the
    /// test holds): that transaction's line is answered with an error, never an ok, and its resend
    /// is applied on a new connection. Before the fix the server's `FATAL` was taken for an error
    /// of the statement, the connection kept, and the `ROLLBACK` written to it, once it had closed,
    /// was never answered (one run in four hung).
    @Test func aConnectionEndedUnderAQueryAnswersAnErrorAndTheResendIsApplied() async throws {
        let cluster = try PostgresCluster.shared()
        let database = "ended_in_query"
        let url = try cluster.createDatabase(database)
        let directory = Paths.temporaryDirectory()
        let lines = MuseumTrace.devices(1, events: 4, prefix: "pg8")[0]
        let oracle = try ReplayOracle(lines: lines, directory: directory)
        let server = try await ServerProcess.start(["--state", url])
        #expect(try await LineClient.exchange(port: server.port, lines: [lines[0]]) == [try #require(oracle.replies[try eventID(lines[0])])])

        let holder = PostgresSession(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        defer { holder.drop() }
        try await holder.run("BEGIN")
        try await holder.run("SELECT pg_advisory_xact_lock(\(PostgresStateStore.lockKey("pg8-dev-0")))")
        // A child task, not an unstructured one: the time limit's cancellation must reach it.
        async let waiting = LineClient.exchange(port: server.port, lines: [lines[1]])
        try await cluster.waitForBackend(of: database, waitingFor: "advisory")
        try await cluster.endBackends(of: database, waitingFor: "advisory")
        let reply = try await waiting
        #expect(reply.count == 1)
        #expect(reply.first?.contains("state not saved, resend this line") == true, "\(reply)")
        try await holder.run("ROLLBACK")

        for line in lines.dropFirst() {
            let reply = try await Self.answeredOK(line, port: server.port)
            #expect(reply == oracle.replies[try eventID(line)])
        }
        #expect(server.process.isRunning)
        await server.stop()
    }

    /// The connection ended by the server at each step of a transaction, as a restart between two
    /// statements ends it (the session still holds the connection, which has closed): no wait is
    /// left unanswered, nothing of the transaction is saved, and the next transaction commits on
    /// a new connection.
    @Test(arguments: ConnectionLoss.allCases)
    func aConnectionLostAtAStepEndsTheTransactionUnsavedAndTheNextConnects(_ loss: ConnectionLoss) async throws {
        let cluster = try PostgresCluster.shared()
        let database = "lost_\(loss)".lowercased()
        let location = try PostgresLocation(url: try cluster.createDatabase(database))
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { store.close() }
        let reads = TransactionReads(devices: ["dev-a"])
        let campaign = CampaignID(canonical: "c1")
        switch loss {
        case .betweenTransactions:
            try await store.session.loseConnection()
        case .beforePrepare:
            try await store.begin()
            try await store.session.loseConnection()
            await #expect(throws: StoreError.self) { try await store.prepare(reads) }
            await store.rollback()
        case .beforeCommit:
            try await store.begin()
            try await store.prepare(reads)
            store.recordFiring(device: "dev-a", campaign: campaign, at: Timestamp(milliseconds: 1))
            try await store.session.loseConnection()
            await #expect(throws: StoreError.self) { try await store.commit() }
        case .beforeRollback:
            try await store.begin()
            try await store.prepare(reads)
            store.recordFiring(device: "dev-a", campaign: campaign, at: Timestamp(milliseconds: 1))
            try await store.session.loseConnection()
            await store.rollback()
        }
        #expect(!store.inTransaction)
        #expect(try cluster.psql(database, "SELECT count(*) FROM firing") == "0\n")

        try await store.transaction(reading: reads, {
            store.recordFiring(device: "dev-a", campaign: campaign, at: Timestamp(milliseconds: 2))
        }, retry: {})
        #expect(try cluster.psql(database, "SELECT device, time FROM firing") == "dev-a|2\n")
    }

    /// PostgresNIO never answers a statement written to a connection that has closed: the wait
    /// for it ends with the close, as an error.
    @Test func aStatementOnAClosedConnectionFailsInsteadOfWaitingForAnAnswer() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("closed_statement"))
        let session = PostgresSession(location: location, logger: Logger(label: "test"))
        defer { session.drop() }
        try await session.run("SELECT 1")
        try await session.loseConnection()
        let connection = try #require(session.connection)
        let answer: EventLoopFuture<PostgresQueryResult> = connection.query("SELECT 1", logger: session.logger)
        await #expect(throws: PostgresSession.ConnectionClosed.self) {
            try await PostgresSession.first(answer, unlessClosed: .init(connection.closeFuture), onTimeout: {}).get()
        }
    }

    /// `line`'s ok reply, resent after each error (at most 100 times); each error must say that
    /// nothing was saved.
    static func answeredOK(_ line: String, port: Int) async throws -> String {
        for _ in 0..<100 {
            let reply = try await LineClient.exchange(port: port, lines: [line]).first ?? ""
            if reply.hasPrefix("{\"ok\":true") { return reply }
            #expect(reply.contains("state not saved, resend this line"), "\(reply)")
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no ok for \(line)")
        return ""
    }
}

extension PostgresCluster {
    /// Ends every backend of `database` (only those waiting for `event`, e.g. `advisory`, when
    /// given) but the caller's, as a restart ends them, and returns once they are gone.
    func endBackends(of database: String, waitingFor event: String? = nil) async throws {
        let filter = "datname = '\(database)' AND pid <> pg_backend_pid()" + (event.map { " AND wait_event = '\($0)'" } ?? "")
        try psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE \(filter)")
        for _ in 0..<500 {
            if try psql("postgres", "SELECT count(*) FROM pg_stat_activity WHERE \(filter)") == "0\n" { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "the backends of \(database) did not end")
    }

    /// Returns once a backend of `database` waits for `event` (e.g. `advisory`, a lock).
    func waitForBackend(of database: String, waitingFor event: String) async throws {
        for _ in 0..<500 {
            let count = try psql("postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = '\(event)'")
            if count != "0\n" { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "no backend of \(database) waits for \(event)")
    }
}

/// Where a test loses the connection of a transaction (`aConnectionLostAtAStep...`).
enum ConnectionLoss: CaseIterable, Sendable {
    /// Between two transactions: before `BEGIN`.
    case betweenTransactions
    /// After `BEGIN`, before the devices are locked and read.
    case beforePrepare
    /// After the reads, before the writes and `COMMIT`.
    case beforeCommit
    /// After the reads, before `ROLLBACK` (an attempt that read what was not prepared).
    case beforeRollback
}

extension PostgresSession {
    /// Ends the session's backend from the server's side (as a restart or `pg_terminate_backend`
    /// does) and returns once the connection has closed; the session still holds it, as it does
    /// when the database goes away between two of its statements.
    func loseConnection() async throws {
        let connection = try #require(connection)
        let ending: EventLoopFuture<PostgresQueryResult> = connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: logger)
        _ = try? await ending.get()
        try await connection.closeFuture.get()
        #expect(self.connection != nil)
    }
}

/// `PostgresSession.first`, the wait of every statement: it always ends, and an answer that came
/// first is the answer.
@Suite(.timeLimit(.minutes(5))) struct PostgresStatementWaitTests {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

    @Test func anAnswerBeforeTheCloseIsTheAnswer() async throws {
        let answer = eventLoop.makePromise(of: Int.self), closed = eventLoop.makePromise(of: Void.self)
        let waited = PostgresSession.first(answer.futureResult, unlessClosed: .init(closed.futureResult), onTimeout: {})
        try await eventLoop.submit {
            answer.succeed(7)
            closed.succeed(())
        }.get()
        #expect(try await waited.get() == 7)
    }

    @Test func aCloseBeforeAnyAnswerEndsTheWait() async throws {
        let answer = eventLoop.makePromise(of: Int.self), closed = eventLoop.makePromise(of: Void.self)
        let waited = PostgresSession.first(answer.futureResult, unlessClosed: .init(closed.futureResult), onTimeout: {})
        closed.succeed(())
        await #expect(throws: PostgresSession.ConnectionClosed.self) { try await waited.get() }
        answer.succeed(7)
    }

    /// A connection's close holds one wait, the one in flight, not one per statement it ran
    /// (those would pile up for as long as the connection lasts); one after the close runs at once.
    @Test func aCloseRunsTheWaitInFlightOnlyAndALaterOneAtOnce() async throws {
        let closed = eventLoop.makePromise(of: Void.self)
        let closing = PostgresSession.Closing(closed.futureResult)
        let ran = Mutex<[Int]>([])
        closing.whenClosed(on: eventLoop) { ran.withLock { $0.append(1) } }
        closing.whenClosed(on: eventLoop) { ran.withLock { $0.append(2) } }
        try await eventLoop.submit { closed.succeed(()) }.get()
        #expect(ran.withLock { $0 } == [2])
        closing.whenClosed(on: eventLoop) { ran.withLock { $0.append(3) } }
        try await eventLoop.submit {}.get()
        #expect(ran.withLock { $0 } == [2, 3])
    }

    @Test func noAnswerWithinTheLimitEndsTheWaitAndALateValueIsHandedBack() async throws {
        let answer = eventLoop.makePromise(of: Int.self)
        let timedOut = Mutex(false), late = Mutex<Int?>(nil)
        let waited = PostgresSession.first(
            answer.futureResult, unlessClosed: nil, within: .milliseconds(10),
            onTimeout: { timedOut.withLock { $0 = true } }, late: { value in late.withLock { $0 = value } })
        await #expect(throws: PostgresSession.Timeout.self) { try await waited.get() }
        #expect(timedOut.withLock { $0 })
        try await eventLoop.submit { answer.succeed(7) }.get()
        #expect(late.withLock { $0 } == 7)
    }
}
