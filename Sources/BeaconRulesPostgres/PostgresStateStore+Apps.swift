package import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The apps of the database (schema version 4): `beaconrules_app` numbers the app ids, and every
/// row of the other tables carries its app's number. A store serves the app it was opened for;
/// the upkeep of apps (`beaconrules state copy --app`, `state drop`) is here.
extension PostgresStateStore {
    /// The number of app `id`; a new app is given the next number when `create` (several
    /// instances may ask at once: the first insert wins, the others read its number), nil
    /// otherwise.
    nonisolated(nonsending) package func number(ofApp id: String, create: Bool) async throws(StoreError) -> Int32? {
        if create {
            try await session.run("INSERT INTO beaconrules_app (id) VALUES (\(id)) ON CONFLICT (id) DO NOTHING")
        }
        let rows = try await session.run("SELECT num FROM beaconrules_app WHERE id = \(id)")
        return try decode(rows, "beaconrules_app") { try $0.decode(Int32.self) }.first
    }

    /// The database's apps, by number.
    nonisolated(nonsending) package func apps() async throws(StoreError) -> [(number: Int32, id: String)] {
        let rows = try await session.run("SELECT num, id FROM beaconrules_app ORDER BY num")
        return try decode(rows, "beaconrules_app") { row in
            let (number, id) = try row.decode((Int32, String).self)
            return (number, id)
        }
    }

    /// The number of app `id`, or an error that names the apps the database has.
    nonisolated(nonsending) func existing(_ id: String) async throws(StoreError) -> Int32 {
        if let number = try await number(ofApp: id, create: false) { return number }
        throw StateApps.unknown(id, in: location.description, holding: try await apps().map(\.id))
    }

    /// Whether app `number` holds any firing, answer, ledger line, presence or outbox entry.
    nonisolated(nonsending) func holdsState(app number: Int32) async throws(StoreError) -> Bool {
        let rows = try await session.run("""
            SELECT EXISTS (SELECT 1 FROM firing WHERE app = \(number)) OR EXISTS (SELECT 1 FROM answered WHERE app = \(number))
            OR EXISTS (SELECT 1 FROM ledger WHERE app = \(number)) OR EXISTS (SELECT 1 FROM presence WHERE app = \(number))
            OR EXISTS (SELECT 1 FROM outbox WHERE app = \(number))
            """)
        return try decode(rows, "firing") { try $0.decode(Bool.self) }.first ?? false
    }

    /// Whether any app of the database holds a firing, an answer or a ledger line.
    nonisolated(nonsending) package func holdsState() async throws(StoreError) -> Bool {
        let rows = try await session.run("SELECT (SELECT count(*) FROM firing) + (SELECT count(*) FROM answered) + (SELECT count(*) FROM ledger)")
        return ((try? rows.first?.decode(Int64.self)) ?? 0) > 0
    }

    /// Deletes every row of app `id` and the app itself, in one transaction; how many rows of
    /// each kind went. Stop the instances that serve the app first.
    nonisolated(nonsending) package func dropApp(_ id: String) async throws(StoreError) -> AppRowCounts {
        let number = try await existing(id)
        try await begin()
        do throws(StoreError) {
            var counts = AppRowCounts()
            counts.firings = try await session.run("DELETE FROM firing WHERE app = \(number) RETURNING 1").count
            counts.answers = try await session.run("DELETE FROM answered WHERE app = \(number) RETURNING 1").count
            counts.ledgerLines = try await session.run("DELETE FROM ledger WHERE app = \(number) RETURNING 1").count
            try await session.run("DELETE FROM presence WHERE app = \(number)")
            counts.outboxEntries = try await session.run("DELETE FROM outbox WHERE app = \(number) RETURNING 1").count
            try await session.run("DELETE FROM beaconrules_app WHERE num = \(number)")
            try await commit()
            return counts
        } catch {
            await rollback()
            throw error
        }
    }
}
