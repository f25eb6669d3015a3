package import BeaconRulesStore
import PostgresNIO
package import Logging

/// The tables of a PostgreSQL state and their version, in `beaconrules_schema`. An empty database
/// gets the current schema on first use; an older one is upgraded by `beaconrules state migrate`
/// (never behind an operator's back: several instances may be running on it).
package enum PostgresSchema {
    /// 1: the tables. 2: indexes on when answers and outbox entries were given (retention
    /// forgets by them). 3: each ledger line names its delivery (indexed), so that an instance
    /// reads the lines of the records a batch's responses name, whichever instance wrote them.
    package static let version = 3

    /// Held (transaction-scoped) while the schema is checked or changed: instances started
    /// together on an empty database create it once.
    static let lock: Int64 = 0x4252_5354_5343_4845
    /// Held (session-scoped) by the one instance that takes presence input (SPEC section 7).
    static let presenceLock: (Int32, Int32) = (0x4252_5354, 7)

    /// The statements that take an empty database to `version`, one step at a time.
    static func steps(from: Int, to: Int) -> [PostgresQuery] {
        var steps: [PostgresQuery] = []
        if from < 1 && to >= 1 {
            steps += [
                "CREATE TABLE beaconrules_schema (version integer NOT NULL)",
                "INSERT INTO beaconrules_schema (version) VALUES (0)",
                "CREATE TABLE firing (device text NOT NULL, campaign text NOT NULL, time bigint NOT NULL, PRIMARY KEY (device, campaign))",
                "CREATE TABLE answered (event text PRIMARY KEY, records bytea NOT NULL, at bigint NOT NULL DEFAULT 0)",
                "CREATE TABLE ledger (key text PRIMARY KEY, line bytea NOT NULL)",
                "CREATE TABLE presence (id integer PRIMARY KEY CHECK (id = 1), snapshot bytea NOT NULL)",
                "CREATE TABLE outbox (seq bigserial PRIMARY KEY, records bytea NOT NULL, at bigint NOT NULL DEFAULT 0)",
            ]
        }
        if from < 2 && to >= 2 {
            steps += [
                "CREATE INDEX answered_at ON answered (at)",
                "CREATE INDEX outbox_at ON outbox (at)",
            ]
        }
        if from < 3 && to >= 3 {
            steps += [
                "ALTER TABLE ledger ADD COLUMN delivery text",
                fillLedgerDeliveries,
                "CREATE INDEX ledger_delivery ON ledger (delivery)",
            ]
        }
        steps.append("UPDATE beaconrules_schema SET version = \(to)")
        return steps
    }

    /// Names the delivery of each ledger line that has none yet (lines saved before version 3,
    /// or copied from an SQLite state), as `DeliveryLedger.Line.delivery` does: a delivery's and
    /// a tombstone's own key, the `of` of the others; none for unhandled counts.
    static let fillLedgerDeliveries: PostgresQuery = """
        UPDATE ledger SET delivery = CASE WHEN key LIKE '0:%' OR key LIKE '4:%' THEN substr(key, 3)
        ELSE convert_from(line, 'UTF8')::jsonb ->> 'of' END
        WHERE delivery IS NULL AND key NOT LIKE '3:%'
        """

    /// The schema's version, 0 for an empty database; an error for a database with other tables.
    nonisolated(nonsending) static func currentVersion(_ session: PostgresSession) async throws(StoreError) -> Int {
        let tables = try await session.run("""
            SELECT count(*) FILTER (WHERE table_name = 'beaconrules_schema'), count(*)
            FROM information_schema.tables WHERE table_schema = current_schema()
            """)
        guard let counts = try? tables.first?.decode((Int64, Int64).self) else { return 0 }
        if counts.0 == 0 {
            if counts.1 == 0 { return 0 }
            throw StoreError(path: session.location.description, message: "the database has tables but is not a beaconrules state; give --state an empty database")
        }
        let rows = try await session.run("SELECT version FROM beaconrules_schema")
        guard let version = try? rows.first?.decode(Int32.self) else {
            throw StoreError(path: session.location.description, message: "beaconrules_schema holds no version")
        }
        return Int(version)
    }

    /// Creates the schema in an empty database, or checks it is the current version.
    nonisolated(nonsending) static func prepare(_ session: PostgresSession) async throws(StoreError) {
        try await inTransaction(session) { () async throws(StoreError) in
            let version = try await currentVersion(session)
            if version == 0 {
                for step in steps(from: 0, to: Self.version) { try await session.run(step) }
            } else if version < Self.version {
                throw StoreError(path: session.location.description, message: "state schema version \(version); this beaconrules uses version \(Self.version): run `beaconrules state migrate --state URL` (with every instance stopped)")
            } else if version > Self.version {
                throw StoreError(path: session.location.description, message: "state schema version \(version) is newer than this beaconrules reads (\(Self.version))")
            }
        }
    }

    /// Upgrades the schema to the current version (creating it in an empty database); returns
    /// the version it found.
    @discardableResult
    nonisolated(nonsending) package static func migrate(_ location: PostgresLocation, logger: Logger) async throws(StoreError) -> Int {
        let session = PostgresSession(location: location, logger: logger)
        defer { session.drop() }
        return try await migrate(session, to: Self.version)
    }

    nonisolated(nonsending) static func migrate(_ session: PostgresSession, to target: Int) async throws(StoreError) -> Int {
        try await inTransaction(session) { () async throws(StoreError) in
            let version = try await currentVersion(session)
            if version > target {
                throw StoreError(path: session.location.description, message: "state schema version \(version) is newer than this beaconrules reads (\(target))")
            }
            if version < target {
                for step in steps(from: version, to: target) { try await session.run(step) }
            }
            return version
        }
    }

    /// Runs `body` in a transaction holding the schema lock.
    nonisolated(nonsending) static func inTransaction<T>(_ session: PostgresSession, _ body: nonisolated(nonsending) () async throws(StoreError) -> T) async throws(StoreError) -> T {
        try await session.run("BEGIN")
        do {
            try await session.run("SELECT pg_advisory_xact_lock(\(lock))")
            let result = try await body()
            try await session.run("COMMIT")
            return result
        } catch {
            do { try await session.run("ROLLBACK") } catch { session.drop() }
            throw error
        }
    }
}
