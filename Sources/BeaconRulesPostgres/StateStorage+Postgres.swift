public import BeaconRulesService
import BeaconRulesServer

extension StateStorage {
    /// A PostgreSQL database, the same as `serve --state postgres://...`: several services and
    /// servers may share it (docs/serve.md, "Scaling out"). Its schema is created when empty.
    /// The service connects at its first call (or `RulesService.openState()`), and awaits every
    /// round trip on its own thread.
    public static func postgres(_ location: PostgresLocation) -> StateStorage {
        StateStorage { catalog, presence, retention, logger in
            .shared(SharedServicePipeline(
                opening: { logger in try await PostgresStateStore(location: location, logger: logger) },
                catalog: catalog, presence: presence, retention: retention, logger: logger))
        }
    }
}
