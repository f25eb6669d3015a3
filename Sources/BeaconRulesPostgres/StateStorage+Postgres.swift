public import BeaconRulesService
import BeaconRulesServer
import BeaconRulesStore

extension StateStorage {
    /// A PostgreSQL database, the same as `serve --state postgres://...`: several services and
    /// servers may share it (docs/serve.md, "Scaling out"). Its schema is created when empty.
    /// The service connects at its first call (or `RulesService.openState()`), and awaits every
    /// round trip on its own thread.
    /// With `RulesApps`, every app's state is in this database (each app's rows under its id,
    /// each app's service with a connection of its own).
    public static func postgres(_ location: PostgresLocation) -> StateStorage {
        postgres(location, app: StateApps.defaultID)
    }

    /// App `app`'s state in the database.
    static func postgres(_ location: PostgresLocation, app: String) -> StateStorage {
        StateStorage(
            open: { catalog, presence, retention, logger in
                .shared(SharedServicePipeline(
                    opening: { logger in try await PostgresStateStore(location: location, app: app, logger: logger) },
                    catalog: catalog, presence: presence, retention: retention, logger: logger))
            },
            apps: { ids in ids.map { StateStorage.AppState(storage: .postgres(location, app: $0)) } })
    }
}
