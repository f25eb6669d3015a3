import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// One connection to the database, used by one owner that awaits each query (the engine's owner,
/// `EngineOwner`, for `serve`, `http` and `RulesService`, or a one-shot command's main task):
/// every round trip is a PostgresNIO future, awaited, and nothing blocks a thread while a query is
/// in flight. Its methods are `nonisolated(nonsending)`: they run on the caller's executor (the
/// owner's thread), so the session and the store around it never leave it.
///
/// Every wait ends: with the answer, or with an error once the connection closes or
/// `queryTimeout` passes (`first`). A connection that fails, or that the server closed, is
/// dropped; the next transaction connects again (a database restarted under a running server
/// costs the batches in between, not a restart of the server).
///
/// Not `Sendable`: one owner makes every call.
final class PostgresSession {
    let location: PostgresLocation
    let logger: Logger
    private(set) var connection: PostgresConnection?
    /// The close of `connection`, which ends the wait of its statement in flight.
    private var closing: Closing?
    private var connections = 0

    init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Whether a connection is open (a dropped one, or one the server closed, is not reopened
    /// to roll back).
    var isConnected: Bool { connection.map { !$0.isClosed } ?? false }
    /// Names the open connection (0: none): session-scoped locks last as long as it does.
    var connectionNumber: Int { isConnected ? connections : 0 }

    /// Set by the owner between its `BEGIN` and the transaction's end: a connection lost then
    /// is not replaced (its transaction is gone with it, and a new connection would run the
    /// rest of the transaction's statements each on its own, without its locks).
    var holdsTransaction = false

    /// The event loop new connections are made on: the owner's when it runs on one (its round
    /// trips then resume it where the answer was read), otherwise any of NIO's shared loops.
    var eventLoop: (any EventLoop)?

    /// The open connection, connecting when there is none (at most `queryTimeout`). One that has
    /// closed since the last statement (the database restarted between two transactions) is
    /// never written to again: PostgresNIO drops a statement written to a closed connection
    /// without ever answering it.
    nonisolated(nonsending) private func connected() async throws(StoreError) -> PostgresConnection {
        if let connection {
            if !connection.isClosed { return connection }
            drop()
        }
        if holdsTransaction {
            throw StoreError(path: location.description, message: "the connection to the database was lost inside the transaction; nothing of it was saved")
        }
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        do {
            switch location.tls {
            case .disable: break
            case .require:
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = .none
                configuration.tls = .require(try NIOSSLContext(configuration: tls))
            case .verifyFull:
                var tls = TLSConfiguration.makeClientConfiguration()
                if let roots = location.rootCertificates {
                    guard FileManager.default.isReadableFile(atPath: roots) else {
                        throw StoreError(path: location.description, message: "cannot read the sslrootcert file \(roots)")
                    }
                    tls.trustRoots = .file(roots)
                }
                configuration.tls = .require(try NIOSSLContext(configuration: tls))
            }
            connections += 1
            let connecting: EventLoopFuture<PostgresConnection> = PostgresConnection.connect(
                on: eventLoop ?? MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: connections, logger: logger)
            // A connection made after the wait gave up is closed at once.
            let new = try await Self.value(of: Self.first(connecting, unlessClosed: nil, onTimeout: {}, late: { late in late.close().whenComplete { _ in withExtendedLifetime(late) {} } }))
            connection = new
            closing = Closing(new.closeFuture)
            return new
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(path: location.description, message: "cannot connect: \(describeConnecting(error))")
        }
    }

    /// Runs `query` and returns its rows, awaiting them, at most `queryTimeout`. A failure
    /// drops the connection unless it is an error of the statement that leaves the connection
    /// usable (an `ERROR` of the server); so does a timeout (a query whose connection died under
    /// it may never complete: closing the connection ends it). The wait ends when the connection
    /// closes, whether or not PostgresNIO answers the statement (`first`).
    @discardableResult
    nonisolated(nonsending) func run(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        let connection = try await connected()
        do {
            let answer: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            return try await Self.value(of: Self.first(answer, unlessClosed: closing) {
                connection.close().whenComplete { _ in }
            }).rows
        } catch {
            if !Self.leavesConnectionUsable(error) { drop() }
            throw StoreError(path: location.description, message: Self.describe(error))
        }
    }

    /// The value of `future`, awaited on the caller's executor (`isolation`, the owner's actor).
    /// `EventLoopFuture.get()` is not `nonisolated(nonsending)`: awaited from the owner it went to
    /// Swift's global executor and back, two thread wakes a round trip. And the isolation is
    /// named here, not left to `nonisolated(nonsending)`: in a release build (Swift 6.3.1, `-O`)
    /// the store's methods, reached through the `SharedStateLog` requirement from generic code,
    /// resumed on the global executor after their first await (measured: 8,001 of 8,044 round
    /// trips), so the engine ran off its owner, beside it; named, every round trip resumes on
    /// the owner (`PostgresOwnerIsolationTests`).
    static func value<T: Sendable>(of future: EventLoopFuture<T>, isolation: isolated (any Actor)? = #isolation) async throws -> T {
        try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            future.whenComplete { continuation.resume(with: $0) }
        }
    }

    /// How long a query (or connecting) may take before its connection is given up.
    static let queryTimeout = TimeAmount.seconds(15)

    /// No answer within `queryTimeout`.
    struct Timeout: Error, CustomStringConvertible {
        var description: String { "no answer from the database within \(PostgresSession.queryTimeout.nanoseconds / 1_000_000_000) s; connecting again" }
    }

    /// The connection closed before the statement was answered.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to the database closed before the statement was answered; connecting again" }
    }

    /// `answer`, or a failure as soon as `closing` sees its connection close or `limit` passes,
    /// whichever comes first; `onTimeout` runs on the timeout (before the wait ends), `late` with
    /// a value that comes after the wait gave up. The result always completes: PostgresNIO never
    /// answers a statement written to a connection that has closed (it reaches a pipeline whose
    /// handlers are gone and is dropped there), and no cancellation reaches it, so neither the
    /// statement alone nor a task group around it (which waits for every child) would end.
    ///
    /// Everything happens on `answer`'s event loop, which is the connection's: a statement answered
    /// before its connection closed completes first (its answer is read before the close is
    /// seen), so a `COMMIT` that was answered is never reported as failed.
    static func first<T: Sendable>(
        _ answer: EventLoopFuture<T>, unlessClosed closing: Closing?, within limit: TimeAmount = queryTimeout,
        onTimeout: @escaping @Sendable () -> Void, late: @escaping @Sendable (T) -> Void = { _ in }
    ) -> EventLoopFuture<T> {
        let eventLoop = answer.eventLoop
        let result = eventLoop.makePromise(of: T.self)
        let decided = Decided()
        let timer = eventLoop.scheduleTask(in: limit) {
            guard decided.take() else { return }
            onTimeout()
            result.fail(Timeout())
        }
        answer.whenComplete { outcome in
            guard decided.take() else {
                if case .success(let value) = outcome { late(value) }
                return
            }
            timer.cancel()
            result.completeWith(outcome)
        }
        closing?.whenClosed(on: eventLoop) {
            guard decided.take() else { return }
            timer.cancel()
            result.fail(ConnectionClosed())
        }
        return result.futureResult
    }

    /// A connection's close, for the waits of its statements: one callback on its close future
    /// for as long as it lasts (a callback per statement would pile up there until the close),
    /// which runs the wait in flight (one owner runs one statement at a time), or each wait at
    /// once once it has closed. `whenClosed` registers on the connection's event loop, after the
    /// answer's own callback, so an answer that came before the close is taken first.
    final class Closing: Sendable {
        private struct State {
            var closed = false
            var waiting: (@Sendable () -> Void)?
        }

        private let state = Mutex(State())

        init(_ closed: EventLoopFuture<Void>) {
            closed.whenComplete { [self] _ in
                let waiting = state.withLock { state in
                    state.closed = true
                    defer { state.waiting = nil }
                    return state.waiting
                }
                waiting?()
            }
        }

        /// Runs `action` once the connection has closed, in place of the previous wait's.
        func whenClosed(on eventLoop: any EventLoop, _ action: @escaping @Sendable () -> Void) {
            eventLoop.execute { [self] in
                let closed = state.withLock { state in
                    if !state.closed { state.waiting = action }
                    return state.closed
                }
                if closed { action() }
            }
        }
    }

    /// Whether a wait of `first` is decided: the first to take it completes the result.
    private final class Decided: Sendable {
        private let taken = Atomic(false)
        func take() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
    }

    /// Forgets the connection (if any) and closes it without waiting; the next query opens a new one.
    func drop() {
        guard let connection else { return }
        self.connection = nil
        closing = nil
        // Kept until closed: a connection must not be freed open.
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// An `ERROR` of the server ends the statement and leaves the connection usable; a `FATAL`
    /// or `PANIC` one (`pg_terminate_backend`, a shutdown) ends the connection too.
    static func leavesConnectionUsable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return error.serverInfo?[.severity] == "ERROR"
    }

    /// Why a connection failed; a certificate that does not verify says which check it failed.
    private func describeConnecting(_ error: any Error) -> String {
        let reason = Self.describe(error)
        if reason.contains("failedToValidateHostname") {
            return "the server's certificate is not one for host \(location.host) (sslmode=verify-full checks the name): \(reason)"
        }
        if reason.contains("CERTIFICATE_VERIFY_FAILED") {
            let roots = location.rootCertificates.map { "the sslrootcert file \($0)" } ?? "the system's certificate authorities"
            return "the server's certificate is not signed by an authority in \(roots): \(reason)"
        }
        return reason
    }

    /// What went wrong, in a line: the server's message and SQLSTATE, or the client's reason.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
