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
    /// missing file, and a typo must not leave an empty state behind. `app`: the app whose state
    /// is read, which must be there (`report --app`); nil: the app `default`.
    nonisolated(nonsending) func openExisting(app: String? = nil, logger: Logger) async throws(StoreError) -> OpenState {
        guard exists else {
            throw StoreError(path: description, message: "no such state file; give the file that `replay --state` wrote")
        }
        guard let app else { return try await open(logger: logger) }
        switch self {
        case .sqlite(let path):
            let store = try SQLiteStateStore(path: path)
            guard let number = try store.number(ofApp: app, create: false) else {
                let ids = try store.apps().map(\.id)
                store.close()
                throw StateApps.unknown(app, in: path, holding: ids)
            }
            store.use(app: number)
            return .sqlite(store)
        case .postgres(let location):
            return .postgres(try await PostgresStateStore(location: location, app: app, create: false, logger: logger))
        }
    }

    /// Opens the state for upkeep (`beaconrules state`): a file (created if missing) or a
    /// database whose schema is checked, without reading any app's ledger.
    nonisolated(nonsending) func openForUpkeep(logger: Logger) async throws(StoreError) -> OpenState {
        switch self {
        case .sqlite(let path): return .sqlite(try SQLiteStateStore(path: path))
        case .postgres(let location): return .postgres(try await PostgresStateStore(upkeepOf: location, logger: logger))
        }
    }

    /// Opens the state of the apps `ids` (`serve --apps`): the file once (every app's rows in it,
    /// the store switched to an app before its work), or a store per app on the database (each
    /// its own connection).
    nonisolated(nonsending) func openApps(_ ids: [String], checkpoints: CheckpointMode = .onThread, logger: Logger) async throws(StoreError) -> OpenApps {
        switch self {
        case .sqlite(let path):
            return .sqlite(try SQLiteStateStore(path: path, checkpoints: checkpoints))
        case .postgres(let location):
            var stores: [PostgresStateStore] = []
            for id in ids {
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(id)"
                do {
                    stores.append(try await PostgresStateStore(location: location, app: id, logger: appLogger))
                } catch {
                    for store in stores { store.close() }
                    throw error
                }
            }
            return .postgres(stores)
        }
    }
}

/// The state of several apps, opened (`serve --apps`): one SQLite file, or a PostgreSQL store per
/// app.
enum OpenApps {
    case sqlite(SQLiteStateStore)
    case postgres([PostgresStateStore])
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

    /// The ids of the apps the state holds, by number.
    nonisolated(nonsending) func appIDs() async throws(StoreError) -> [String] {
        switch self {
        case .sqlite(let store): return try store.apps().map(\.id)
        case .postgres(let store): return try await store.apps().map(\.id)
        }
    }

    /// Every row of app `id`, to copy into another state; an app the state does not have is an
    /// error that names those it has.
    nonisolated(nonsending) func export(app id: String) async throws(StoreError) -> StateExport {
        switch self {
        case .sqlite(let store):
            guard let number = try store.number(ofApp: id, create: false) else {
                throw StateApps.unknown(id, in: store.path, holding: try store.apps().map(\.id))
            }
            store.use(app: number)
            return try store.export()
        case .postgres(let store): return try await store.export(app: id)
        }
    }

    /// Writes `export` as app `id`'s state, which must hold none.
    nonisolated(nonsending) func importState(_ export: StateExport, app id: String) async throws(StoreError) {
        switch self {
        case .sqlite(let store):
            try store.use(appID: id)
            try store.importState(export)
        case .postgres(let store): try await store.importState(export, app: id)
        }
    }

    /// Whether any app of the state holds a firing, an answer or a ledger line.
    nonisolated(nonsending) func holdsState() async throws(StoreError) -> Bool {
        switch self {
        case .sqlite(let store): return try store.holdsState()
        case .postgres(let store): return try await store.holdsState()
        }
    }

    /// Deletes app `id` with every row of its state.
    nonisolated(nonsending) func dropApp(_ id: String) async throws(StoreError) -> AppRowCounts {
        switch self {
        case .sqlite(let store): return try store.dropApp(id)
        case .postgres(let store): return try await store.dropApp(id)
        }
    }
}
