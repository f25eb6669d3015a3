import BeaconRulesServer

// Here, not in the server: the server knows a shared database only as a `SharedStateLog`, so
// that it compiles no PostgresNIO (ARCHITECTURE.md, "Pay for what you use"). The requirements
// are the store's own: `transaction(reading:_:retry:)`, `close()` and `connect(on:)`.
extension PostgresStateStore: SharedStateLog {}
