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

    /// Takes the app's lock (shared, for as long as the connection lasts: `PostgresSchema.appLock`),
    /// waiting while a drop of the app is under way, then checks that the app is still there (a
    /// drop between two connections of this store). A dropped app is an error that says so: what
    /// this store would write is nobody's state, and must not be answered as saved.
    nonisolated(nonsending) func holdApp() async throws(StoreError) {
        let lock = PostgresSchema.appLock(app: app)
        try await session.run("SELECT pg_advisory_lock_shared(\(lock.0), \(lock.1))")
        let connection = session.connectionNumber
        // A statement of its own: it reads the table as it is once the lock is held.
        let rows = try await session.run("SELECT EXISTS (SELECT 1 FROM beaconrules_app WHERE num = \(app) AND id = \(appID))")
        guard try decode(rows, "beaconrules_app", { try $0.decode(Bool.self) }).first == true else {
            _ = try? await session.run("SELECT pg_advisory_unlock_shared(\(lock.0), \(lock.1))")
            appHeldOn = 0
            throw StoreError(path: location.description, message: "the app \"\(appID)\" was dropped from the database (`beaconrules state drop`) while this instance had it open: nothing more is saved for it; restart the instance to serve the app anew")
        }
        appHeldOn = connection
    }

    /// Deletes every row of app `id` and the app itself, in one transaction; how many rows of
    /// each kind went. Refused, changing nothing, while any store has the app open (an instance
    /// serving it holds its lock, shared: `holdApp`).
    nonisolated(nonsending) package func dropApp(_ id: String) async throws(StoreError) -> AppRowCounts {
        let number = try await existing(id)
        try await begin()
        do throws(StoreError) {
            let lock = PostgresSchema.appLock(app: number)
            // A store that has just closed may hold the lock a moment longer (its backend ends
            // after its connection): asked again, 0.1 s apart, for up to 3 s.
            var taken = false
            for _ in 0..<30 {
                let rows = try await session.run("SELECT pg_try_advisory_xact_lock(\(lock.0), \(lock.1))")
                taken = try decode(rows, "beaconrules_app", { try $0.decode(Bool.self) }).first == true
                if taken { break }
                try? await Task.sleep(for: .milliseconds(100))
            }
            guard taken else { throw StateApps.served(id, in: location.description) }
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
