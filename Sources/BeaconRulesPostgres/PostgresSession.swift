import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One connection to the database, used by one owner that awaits each query (the engine's owner,
/// `EngineOwner`, for `serve`, `http` and `RulesService`, or a one-shot command's main task):
/// every round trip is PostgresNIO's async API, awaited, and nothing blocks a thread while a
/// query is in flight. Its methods are `nonisolated(nonsending)`: they run on the caller's
/// executor (the owner's thread), so the session and the store around it never leave it.
///
/// A connection that fails is dropped; the next query connects again (a database restarted under
/// a running server costs the batches in between, not a restart of the server).
///
/// Not `Sendable`: one owner makes every call.
final class PostgresSession {
    let location: PostgresLocation
    let logger: Logger
    private var connection: PostgresConnection?
    private var connections = 0

    init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Whether a connection is open (a dropped one is not reopened to roll back).
    var isConnected: Bool { connection != nil }
    /// Names the open connection (0: none): session-scoped locks last as long as it does.
    var connectionNumber: Int { connection == nil ? 0 : connections }

    /// Set by the owner between its `BEGIN` and the transaction's end: a connection lost then
    /// is not replaced (its transaction is gone with it, and a new connection would run the
    /// rest of the transaction's statements each on its own, without its locks).
    var holdsTransaction = false

    /// The open connection, connecting when there is none (at most `queryTimeout`).
    nonisolated(nonsending) private func connected() async throws(StoreError) -> PostgresConnection {
        if let connection { return connection }
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
            let id = connections, logger = logger, configuration = configuration
            let new = try await Self.answer(within: Self.queryTimeout) { () async throws -> PostgresConnection in
                try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger)
            } onTimeout: {}
            connection = new
            return new
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(path: location.description, message: "cannot connect: \(describeConnecting(error))")
        }
    }

    /// Runs `query` and returns its rows, awaiting them, at most `queryTimeout`. A failure
    /// drops the connection when it is the connection that failed (a server error leaves it
    /// usable); so does a timeout (a query whose connection died under it may never complete:
    /// closing the connection ends it).
    @discardableResult
    nonisolated(nonsending) func run(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        let connection = try await connected()
        let logger = logger
        do {
            return try await Self.answer(within: Self.queryTimeout) { () async throws -> [PostgresRow] in
                try await connection.query(query, logger: logger).collect()
            } onTimeout: {
                connection.close().whenComplete { _ in }
            }
        } catch {
            if !Self.isServerError(error) { drop() }
            throw StoreError(path: location.description, message: Self.describe(error))
        }
    }

    /// How long a query (or connecting) may take before its connection is given up.
    static let queryTimeout = Duration.seconds(15)

    /// No answer within `queryTimeout`.
    struct Timeout: Error, CustomStringConvertible {
        var description: String { "no answer from the database within \(PostgresSession.queryTimeout.components.seconds) s; connecting again" }
    }

    /// `work`'s result, or `Timeout` once `limit` has passed. On the timeout `onTimeout` runs (it
    /// closes the connection, which ends the query still in flight) before the error is thrown:
    /// a task group waits for all its tasks, so the query must end for the timeout to return.
    static func answer<T: Sendable>(
        within limit: Duration, _ work: @escaping @Sendable () async throws -> T, onTimeout: @escaping @Sendable () -> Void
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let value = result { return value }
                if Task.isCancelled { throw CancellationError() }
                onTimeout()
                throw Timeout()
            }
            throw Timeout()
        }
    }

    /// Forgets the connection (if any) and closes it without waiting; the next query opens a new one.
    func drop() {
        guard let connection else { return }
        self.connection = nil
        // Kept until closed: a connection must not be freed open.
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    static func isServerError(_ error: any Error) -> Bool {
        (error as? PSQLError)?.code == .server
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
