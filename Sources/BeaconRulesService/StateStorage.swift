public import BeaconRulesPostgres

/// Where the service keeps its state: suppression, once-only, the delivery ledger and the
/// answered event ids.
public enum StateStorage: Sendable {
    /// As long as the service lives (as `serve` without `--state`).
    case inMemory
    /// An SQLite file, the same store as `serve --state` and `replay --state`: a state file moves
    /// between them and the service. Each call's changes are committed before it returns.
    case sqlite(path: String)
    /// A PostgreSQL database, the same as `serve --state postgres://...`: several services and
    /// servers may share it (docs/serve.md, "Scaling out"). Its schema is created when empty.
    case postgres(PostgresLocation)
}
