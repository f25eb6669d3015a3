package import Logging
package import BeaconRules
import BeaconRulesServer
import BeaconRulesStore

/// Where the service keeps its state: suppression, once-only, the delivery ledger and the
/// answered event ids.
///
/// `inMemory` and `sqlite(path:)` come with this product; `postgres(_:)` comes with the
/// `BeaconRulesPostgres` product, so that a backend keeping its state in memory or SQLite
/// compiles no PostgreSQL driver.
public struct StateStorage: Sendable {
    /// Opens the state and builds the service's pipeline over it, for one service.
    package typealias Opening = @Sendable (
        _ catalog: RulesCatalog, _ presence: PresenceSettings, _ retention: Retention, _ logger: Logger
    ) throws -> ServiceEngineKind

    package let open: Opening

    /// A place for the state that `open` makes (another product's store, as `postgres(_:)`).
    package init(open: @escaping Opening) { self.open = open }

    /// As long as the service lives (as `serve` without `--state`).
    public static var inMemory: StateStorage {
        StateStorage { catalog, presence, retention, _ in
            .local(try ServicePipeline(catalog: catalog, store: InMemorySuppressionStore(), log: MemoryStateLog(), presence: presence, retention: retention))
        }
    }

    /// An SQLite file, the same store as `serve --state` and `replay --state`: a state file moves
    /// between them and the service. Each call's changes are committed before it returns.
    public static func sqlite(path: String) -> StateStorage {
        StateStorage { catalog, presence, retention, _ in
            let store = try SQLiteStateStore(path: path)
            return .local(try ServicePipeline(catalog: catalog, store: store, log: store, presence: presence, retention: retention))
        }
    }
}
