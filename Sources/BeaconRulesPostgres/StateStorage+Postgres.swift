public import BeaconRulesService
import BeaconRulesServer

extension StateStorage {
    /// A PostgreSQL database, the same as `serve --state postgres://...`: several services and
    /// servers may share it (docs/serve.md, "Scaling out"). Its schema is created when empty.
    public static func postgres(_ location: PostgresLocation) -> StateStorage {
        StateStorage { catalog, presence, retention, logger in
            let store = try PostgresStateStore(location: location, logger: logger)
            return try ServicePipeline(catalog: catalog, store: store, log: store, presence: presence, retention: retention)
        }
    }
}
