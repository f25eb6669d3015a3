import BeaconRulesServer
import BeaconRulesStore

// Here, not in the server: the server knows a shared database only as a `StateLog` that
// `locksDevices`, so that it compiles no PostgresNIO (ARCHITECTURE.md, "Pay for what you use").
extension PostgresStateStore: StateLog {
    package var locksDevices: Bool { true }
    /// Not counted on a database that other instances share (one instance sees only its own
    /// inserts; a count(*) would scan the table): the gauge reads 0, as docs/serve.md says.
    package var heldAnswers: Int { 0 }
    /// No file: the database's size is PostgreSQL's to report (`pg_database_size`).
    package var fileBytes: Int? { nil }
}
