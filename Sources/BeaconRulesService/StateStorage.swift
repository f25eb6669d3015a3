package import Logging
package import BeaconRules
package import BeaconRulesServer
import BeaconRulesStore

/// Where the service keeps its state: suppression, once-only, the delivery ledger and the
/// answered event ids.
///
/// `inMemory` and `sqlite(path:)` come with this product; `postgres(_:)` comes with the
/// `BeaconRulesPostgres` product, so that a backend keeping its state in memory or SQLite
/// compiles no PostgreSQL driver. Given to `RulesApps`, one storage keeps every app's state, each
/// app's rows under its id (docs/http.md, "Apps").
public struct StateStorage: Sendable {
    /// Opens the state and builds the service's pipeline over it, for one service.
    package typealias Opening = @Sendable (
        _ catalog: RulesCatalog, _ presence: PresenceSettings, _ retention: Retention, _ logger: Logger
    ) throws -> ServiceEngineKind

    /// How one app of several keeps its state here: its own storage, and the owner its service
    /// runs on (nil: a thread of its own).
    package struct AppState: Sendable {
        package var storage: StateStorage
        package var owner: EngineOwner?

        package init(storage: StateStorage, owner: EngineOwner? = nil) {
            self.storage = storage
            self.owner = owner
        }
    }

    package let open: Opening
    /// The states of the apps `ids` of one `RulesApps`, in order.
    package let apps: @Sendable (_ ids: [String]) throws -> [AppState]

    /// A place for the state that `open` makes (another product's store, as `postgres(_:)`), and
    /// `apps` for several apps in it.
    package init(open: @escaping Opening, apps: @escaping @Sendable (_ ids: [String]) throws -> [AppState]) {
        self.open = open
        self.apps = apps
    }

    /// As long as the service lives (as `serve` without `--state`). Each app of `RulesApps` has
    /// its own.
    public static var inMemory: StateStorage {
        StateStorage(
            open: { catalog, presence, retention, _ in
                .local(try ServicePipeline(catalog: catalog, store: InMemorySuppressionStore(), log: MemoryStateLog(), presence: presence, retention: retention))
            },
            apps: { ids in ids.map { _ in AppState(storage: .inMemory) } })
    }

    /// An SQLite file, the same store as `serve --state` and `replay --state`: a state file moves
    /// between them and the service. Each call's changes are committed before it returns. With
    /// `RulesApps`, the file keeps every app's state (each app's rows under its id), and the
    /// apps' services take turns on one thread, the file's one connection.
    public static func sqlite(path: String) -> StateStorage {
        StateStorage(
            open: { catalog, presence, retention, _ in
                let store = try SQLiteStateStore(path: path)
                return .local(try ServicePipeline(catalog: catalog, store: store, log: store, presence: presence, retention: retention))
            },
            apps: { ids in try SharedStateFile.apps(ids, path: path) })
    }
}

/// One state file that several apps' services share (`StateStorage.sqlite(path:)` given to
/// `RulesApps`): one store, opened once, switched to an app before each of that app's calls, and
/// one owner thread for every app's service, so that the store is only ever used there. Closed
/// when the last app's service closes.
///
/// `@unchecked Sendable`: the store is used on the shared owner's thread only (and while the
/// services are built, before any call).
final class SharedStateFile: @unchecked Sendable {
    let store: SQLiteStateStore
    /// The apps' services that have not closed yet.
    private var serving: Int

    private init(store: SQLiteStateStore, apps: Int) {
        self.store = store
        serving = apps
    }

    /// The apps `ids` in the file at `path`, each given a number when new.
    static func apps(_ ids: [String], path: String) throws -> [StateStorage.AppState] {
        let file = SharedStateFile(store: try SQLiteStateStore(path: path), apps: ids.count)
        let owner = EngineOwner(threadNamed: "rules-apps")
        return try ids.map { id in
            let number = try file.store.number(ofApp: id, create: true) ?? 0
            let storage = StateStorage(
                open: { catalog, presence, retention, _ in
                    file.store.use(app: number)
                    return .local(try ServicePipeline(
                        catalog: catalog, store: file.store, log: file.store, presence: presence, retention: retention,
                        enter: { file.store.use(app: number) }, close: { file.close() }))
                },
                apps: { _ in preconditionFailure("an app's state is not shared again") })
            return StateStorage.AppState(storage: storage, owner: owner)
        }
    }

    /// One app's service is done with the file: the last one closes it.
    func close() {
        serving -= 1
        if serving == 0 { store.close() }
    }
}
