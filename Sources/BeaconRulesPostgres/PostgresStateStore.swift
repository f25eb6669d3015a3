package import BeaconRules
package import BeaconRulesStore
package import Logging
package import NIOCore
import PostgresNIO

/// Durable engine state in a PostgreSQL database that many `serve` instances share: the same
/// contract as `SQLiteStateStore` (a reply only after its state is committed, an event id answered
/// before answered with the same bytes and changing nothing, one transaction per batch).
///
/// The engine reads its state synchronously and does no I/O, so a transaction here is *prepare
/// async, decide sync, commit async*: `begin()` and `prepare(_:)` (awaited) lock the batch's
/// devices (transaction-scoped advisory locks, in the order of their hashes, so two instances'
/// batches cannot deadlock) and load what the batch reads (the devices' firings, the answers of
/// its event ids, the ledger lines its responses name, its outbox requests, the presence lock);
/// the engine then runs against memory, and every write is kept in memory; `commit()` (awaited)
/// writes them back (upserts, answers `ON CONFLICT DO NOTHING`, the retention steps) and commits.
/// A read of what was not prepared (presence on the clock reaching a device no line named,
/// `replay`'s presence layer) is answered as empty and noted (`takeMisses()`): that attempt must
/// not commit; `transaction(reading:_:retry:)` rolls it back and runs it again with those reads
/// prepared too (deterministic: nothing of it was committed).
///
/// A store serves one app (`--apps FILE`: the app its lines name; otherwise the app `default`):
/// every statement names the app's number (`beaconrules_app` gives each id one), its devices'
/// locks are the app's own, and so is its presence lock; the other apps' rows are never read.
/// Several apps in one process are several stores, each with its connection.
///
/// Not `Sendable`: one owner makes every call. Its async methods are `nonisolated(nonsending)`:
/// they run on the owner's executor (the `EngineOwner`'s thread, an actor's, or a command's
/// task), and only the database round trips leave it, awaited.
package final class PostgresStateStore: SuppressionStore, PrefetchingSuppressionStore {
    /// The database.
    package let location: PostgresLocation
    let session: PostgresSession
    /// The app this store serves, and its number in the database (read as it opens).
    package let appID: String
    package private(set) var app: Int32 = 0
    /// The wall clock (ms) answers and outbox entries are stamped with (`setClock`).
    var clock: Int64 = 0
    /// Where the sweep of `firing` goes on: the last (device, campaign) it looked at.
    var firingSweep = ("", "")
    /// Whether a transaction is open (`begin()` to `commit()` or `rollback()`).
    package private(set) var inTransaction = false {
        // A connection lost inside the transaction is not replaced until it ends: statements on
        // a new one would run outside the transaction, without its locks.
        didSet { session.holdsTransaction = inTransaction }
    }
    /// What the open transaction read that was not prepared: it must not commit.
    var misses = TransactionReads()
    /// The devices locked in the open transaction, with their firings (campaign -> ms) as loaded
    /// and changed since.
    var devices: [String: [String: Int64]] = [:]
    /// Firings changed in the open transaction: written back by `commit()`.
    var changed: [String: [String: Int64]] = [:]
    /// Answers read or given in the open transaction; ids looked up and found new.
    var answerCache: [String: [UInt8]] = [:]
    var unanswered: Set<String> = []
    /// Answers given in the open transaction, in order: written back by `commit()`.
    var given: [(event: String, records: [UInt8])] = []
    /// Writes of the open transaction other than firings and answers, in the order they came:
    /// run by `commit()` before those.
    var pending = PendingWrites()
    /// The unhandled counts of the ledger as this instance last read or wrote them, by line key,
    /// and as written in the open transaction: the database gets the difference added, so
    /// instances counting at once do not overwrite each other's counts.
    var countsSaved: [String: Int64] = [:]
    var countsPending: [String: Int64] = [:]
    /// Where the sweep of the saved ledger goes on: the last key it looked at.
    var ledgerSweep = ""
    /// Whether this store was opened for its app (not for upkeep): it then holds the app's lock
    /// (`PostgresSchema.appLock`, shared) on every connection, so the app is not dropped under it.
    let holdsApp: Bool
    /// The connection on which this store holds its app's lock (0: none).
    var appHeldOn = 0
    /// The connection on which this instance holds the presence lock (0: it holds none).
    var presenceHeldOn = 0
    /// A transaction was rolled back since presence was last claimed: what this instance holds
    /// in memory may be ahead of what is saved (the clock fired, the outbox entry never committed),
    /// so the next claim says `.gained` and the saved state is read again.
    var presenceStale = false
    /// Reads prepared for the open transaction beyond firings and answers (`prepare(_:)`).
    var prepared = PreparedReads()
    /// The saved ledger as read by `prepareLedger()`, for the next `loadLedger()`.
    var preparedLedger: DeliveryLedger?

    /// Connects, and creates the schema in an empty database (or checks its version), gives
    /// `app` a number if it has none yet (unless `create` is false: then an app the database
    /// does not have is an error naming those it has), and reads its saved delivery ledger for
    /// the first `loadLedger()`.
    nonisolated(nonsending) package init(
        location: PostgresLocation, app: String = StateApps.defaultID, create: Bool = true, logger: Logger
    ) async throws(StoreError) {
        self.location = location
        appID = app
        holdsApp = true
        session = PostgresSession(location: location, logger: logger)
        do {
            try await PostgresSchema.prepare(session)
            self.app = create ? try await number(ofApp: app, create: true) ?? 0 : try await existing(app)
            try await holdApp()
            try await prepareLedger()
        } catch {
            session.drop()
            throw error
        }
    }

    /// Opens the database for upkeep of its apps (`beaconrules state`): the schema checked, the
    /// app `default` served, no ledger read.
    nonisolated(nonsending) package init(upkeepOf location: PostgresLocation, logger: Logger) async throws(StoreError) {
        self.location = location
        appID = StateApps.defaultID
        holdsApp = false
        session = PostgresSession(location: location, logger: logger)
        try await PostgresSchema.prepare(session)
    }

    deinit { close() }

    /// Ends the connection (without waiting): an open transaction ends with it, rolled back by
    /// the server.
    package func close() {
        if inTransaction {
            inTransaction = false
            forgetTransaction()
        }
        session.drop()
    }

    /// Connections from now on are made on `eventLoop` (the owner's, `SharedStateLog`); one
    /// open now is closed (the next statement connects again). Not inside a transaction.
    package func connect(on eventLoop: any EventLoop) {
        precondition(!inTransaction, "connect(on:) inside an open transaction")
        session.eventLoop = eventLoop
        session.drop()
    }

    // MARK: - Transactions

    /// Opens a transaction. On a connection new since the app's lock was taken (the database
    /// was lost and reached again), the transaction takes it again (`holdApp`): an app dropped
    /// meanwhile is an error, and the transaction is rolled back.
    nonisolated(nonsending) package func begin() async throws(StoreError) {
        precondition(!inTransaction, "begin() inside an open transaction")
        try await session.run("BEGIN")
        inTransaction = true
        if holdsApp && appHeldOn != session.connectionNumber {
            do throws(StoreError) { try await holdApp() } catch {
                await rollback()
                throw error
            }
        }
    }

    /// Writes the transaction's changes back and commits; on a failure (or when it read what was
    /// not prepared) rolls back and throws.
    nonisolated(nonsending) package func commit() async throws(StoreError) {
        precondition(inTransaction, "commit() without begin()")
        if !misses.isEmpty {
            await rollback()
            throw StoreError(path: location.description, message: "the transaction read state that was not prepared; run it again with `transaction(reading:_:retry:)`")
        }
        do throws(StoreError) {
            try await writeBack()
            try await session.run("COMMIT")
        } catch {
            await rollback()
            throw error
        }
        inTransaction = false
        countsSaved.merge(countsPending) { $1 }
        forgetTransaction()
    }

    /// Forgets every change since `begin()`. A connection that was dropped has nothing to roll
    /// back (the server ended its transaction with it).
    nonisolated(nonsending) package func rollback() async {
        guard inTransaction else { return }
        if session.isConnected {
            do { try await session.run("ROLLBACK") } catch { session.drop() }
        }
        inTransaction = false
        presenceStale = true
        forgetTransaction()
    }

    /// The locks are gone with the transaction: what was read under them may change now.
    private func forgetTransaction() {
        devices.removeAll(keepingCapacity: true)
        changed.removeAll(keepingCapacity: true)
        answerCache.removeAll(keepingCapacity: true)
        unanswered.removeAll(keepingCapacity: true)
        given.removeAll(keepingCapacity: true)
        countsPending.removeAll()
        pending = PendingWrites()
        prepared = PreparedReads()
        misses = TransactionReads()
    }

    /// What the open transaction read that was not prepared, forgotten here: non-empty, the
    /// transaction must be rolled back and run again with these reads prepared too.
    package func takeMisses() -> TransactionReads {
        defer { misses = TransactionReads() }
        return misses
    }

    /// The changes of the transaction, in the order the pipeline made them: the retention steps
    /// and the ledger, outbox and presence writes, then the firings and the answers.
    nonisolated(nonsending) private func writeBack() async throws(StoreError) {
        try await runPending()
        if !changed.isEmpty {
            var devices: [String] = [], campaigns: [String] = [], times: [Int64] = []
            for (device, firings) in changed {
                for (campaign, time) in firings {
                    devices.append(device)
                    campaigns.append(campaign)
                    times.append(time)
                }
            }
            try await session.run("""
                INSERT INTO firing (app, device, campaign, time) SELECT \(app), * FROM unnest(\(devices)::text[], \(campaigns)::text[], \(times)::bigint[])
                ON CONFLICT (app, device, campaign) DO UPDATE SET time = excluded.time
                """)
        }
        if !given.isEmpty {
            let events = given.map(\.event)
            let records = given.map { ByteBuffer(bytes: $0.records) }
            try await session.run("""
                INSERT INTO answered (app, event, records, at) SELECT \(app), e, r, \(clock) FROM unnest(\(events)::text[], \(records)::bytea[]) AS t(e, r)
                ON CONFLICT (app, event) DO NOTHING
                """)
        }
    }

    // MARK: - Inspection

    /// Every (device, campaign) firing of the app, sorted by device then campaign.
    nonisolated(nonsending) package func firings() async throws(StoreError) -> [FiringEntry] {
        let rows = try await session.run("SELECT device, campaign, time FROM firing WHERE app = \(app) ORDER BY device, campaign")
        return try decode(rows, "firing") { row in
            let (device, campaign, time) = try row.decode((String, String, Int64).self)
            return FiringEntry(device: device, campaign: CampaignID(canonical: campaign), time: Timestamp(milliseconds: time))
        }
    }

    /// Every answered event id of the app with its records, sorted by id.
    nonisolated(nonsending) package func answers() async throws(StoreError) -> [(event: String, records: [UInt8])] {
        let rows = try await session.run("SELECT event, records FROM answered WHERE app = \(app) ORDER BY event")
        return try decode(rows, "answered") { row in
            let (event, records) = try row.decode((String, ByteBuffer).self)
            return (event, Array(records.readableBytesView))
        }
    }

    func decode<T>(_ rows: [PostgresRow], _ table: String, _ transform: (PostgresRow) throws -> T) throws(StoreError) -> [T] {
        do { return try rows.map(transform) } catch {
            throw StoreError(path: location.description, message: "cannot read the \(table) table: \(PostgresSession.describe(error))")
        }
    }
}
