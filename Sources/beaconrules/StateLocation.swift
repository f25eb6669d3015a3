import BeaconRules
import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging

/// Where a state lives, as `--state` (or `state copy --from`/`--to`) names it: an SQLite file, or
/// a PostgreSQL database `postgres://USER@HOST:PORT/DB` with its password from
/// `--state-password-file`, else `PGPASSWORD`. Every command opens its store here.
enum StateLocation: CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// `text` as a file path or a PostgreSQL URL (a password in the URL is refused).
    init(_ text: String, passwordFile: String?) throws(StoreError) {
        guard PostgresLocation.isURL(text) else {
            self = .sqlite(path: text)
            return
        }
        var location = try PostgresLocation(url: text)
        try location.readPassword(file: passwordFile)
        self = .postgres(location)
    }

    var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }

    /// Whether the state is there already: a PostgreSQL database always counts (its schema is
    /// made when empty); a file must exist.
    var exists: Bool {
        switch self {
        case .sqlite(let path): FileManager.default.fileExists(atPath: path)
        case .postgres: true
        }
    }

    /// Opens the store, creating an SQLite file that is missing. `checkpoints`: who copies an
    /// SQLite file's WAL back (serve's hidden benchmark flags); a database ignores it.
    nonisolated(nonsending) func open(checkpoints: CheckpointMode = .onThread, logger: Logger) async throws(StoreError) -> OpenState {
        switch self {
        case .sqlite(let path): return .sqlite(try SQLiteStateStore(path: path, checkpoints: checkpoints))
        case .postgres(let location): return .postgres(try await PostgresStateStore(location: location, logger: logger))
        }
    }

    /// Opens a state that must exist already (`report`, `state copy --from`): opening creates a
    /// missing file, and a typo must not leave an empty state behind.
    nonisolated(nonsending) func openExisting(logger: Logger) async throws(StoreError) -> OpenState {
        guard exists else {
            throw StoreError(path: description, message: "no such state file; give the file that `replay --state` wrote")
        }
        return try await open(logger: logger)
    }
}

/// A state store opened from a `StateLocation`, of either kind. Commands switch on it to call
/// the generic engine and pipeline with the concrete store (specialized, as the hot path needs).
/// A file is read and written at once; a database's round trips are awaited.
enum OpenState {
    case sqlite(SQLiteStateStore)
    case postgres(PostgresStateStore)

    func close() {
        switch self {
        case .sqlite(let store): store.close()
        case .postgres(let store): store.close()
        }
    }

    /// The saved delivery ledger (`report`).
    nonisolated(nonsending) func loadLedger() async throws(StoreError) -> DeliveryLedger {
        switch self {
        case .sqlite(let store): return try store.loadLedger()
        case .postgres(let store): return try await store.readLedger()
        }
    }

    /// Every row, to copy into another state.
    nonisolated(nonsending) func export() async throws(StoreError) -> StateExport {
        switch self {
        case .sqlite(let store): return try store.export()
        case .postgres(let store): return try await store.export()
        }
    }

    /// Writes `export` into this state, which must be empty.
    nonisolated(nonsending) func importState(_ export: StateExport) async throws(StoreError) {
        switch self {
        case .sqlite(let store): try store.importState(export)
        case .postgres(let store): try await store.importState(export)
        }
    }
}
