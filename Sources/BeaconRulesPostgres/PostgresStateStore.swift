package import BeaconRules
package import BeaconRulesStore
package import Logging
import NIOCore
import PostgresNIO

/// Durable engine state in a PostgreSQL database that many `serve` instances share: the same
/// contract as `SQLiteStateStore` (a reply only after its state is committed, an event id answered
/// before answered with the same bytes and changing nothing, one transaction per batch).
///
/// A batch costs a few round trips, not one per event: `lock(devices:answersOf:)` takes a
/// transaction-scoped advisory lock per device of the batch (in the order of their hashes, so two
/// instances' batches cannot deadlock) and loads the devices' firings and the batch's answers
/// into memory, where the engine reads them synchronously; `commit()` writes the changes back
/// (upserts, answers `ON CONFLICT DO NOTHING`) and commits. A device read outside the batch's
/// lock (presence on the clock, `replay`) is locked and loaded when first read.
///
/// Not `Sendable`: one owner makes every call, blocking on each query (never on an event loop).
package final class PostgresStateStore: SuppressionStore, PrefetchingSuppressionStore {
    package let location: PostgresLocation
    let session: PostgresSession
    /// The wall clock (ms) answers and outbox entries are stamped with (`setClock`).
    var clock: Int64 = 0
    /// Where the sweep of `firing` goes on: the last (device, campaign) it looked at.
    var firingSweep = ("", "")
    private(set) var inTransaction = false {
        // A connection lost inside the transaction is not replaced until it ends: statements on
        // a new one would run outside the transaction, without its locks.
        didSet { session.holdsTransaction = inTransaction }
    }
    /// The first failure inside the open transaction (the `SuppressionStore` calls cannot throw):
    /// `commit()` reports it after rolling back, and no more SQL runs until then.
    private(set) var failure: StoreError?
    /// The devices locked in the open transaction, with their firings (campaign -> ms) as loaded
    /// and changed since.
    private var devices: [String: [String: Int64]] = [:]
    /// Firings changed in the open transaction: written back by `commit()`.
    private var changed: [String: [String: Int64]] = [:]
    /// Answers read or given in the open transaction; ids looked up and found new.
    private var answerCache: [String: [UInt8]] = [:]
    private var unanswered: Set<String> = []
    /// Answers given in the open transaction, in order: written back by `commit()`.
    private var given: [(event: String, records: [UInt8])] = []
    /// The unhandled counts of the ledger as this instance last read or wrote them, by line key,
    /// and as written in the open transaction: the database gets the difference added, so
    /// instances counting at once do not overwrite each other's counts.
    var countsSaved: [String: Int64] = [:]
    var countsPending: [String: Int64] = [:]
    /// Where the sweep of the saved ledger goes on: the last key it looked at.
    var ledgerSweep = ""
    /// The connection on which this instance holds the presence lock (0: it holds none).
    var presenceHeldOn = 0
    /// A transaction was rolled back since presence was last claimed: what this instance holds
    /// in memory may be ahead of what is saved (the clock fired, the outbox entry never committed),
    /// so the next claim says `.gained` and the saved state is read again.
    var presenceStale = false

    /// Connects, and creates the schema in an empty database (or checks its version).
    package init(location: PostgresLocation, logger: Logger) throws(StoreError) {
        self.location = location
        session = PostgresSession(location: location, logger: logger)
        try PostgresSchema.prepare(session)
    }

    deinit { close() }

    package func close() {
        if inTransaction { rollback() }
        session.drop()
    }

    // MARK: - Transactions

    package func begin() throws(StoreError) {
        precondition(!inTransaction, "begin() inside an open transaction")
        try session.run("BEGIN")
        inTransaction = true
        failure = nil
    }

    package func commit() throws(StoreError) {
        precondition(inTransaction, "commit() without begin()")
        if let failure {
            rollback()
            throw failure
        }
        do throws(StoreError) {
            try writeBack()
            try session.run("COMMIT")
        } catch {
            rollback()
            throw error
        }
        inTransaction = false
        countsSaved.merge(countsPending) { $1 }
        forgetTransaction()
    }

    /// Forgets every change since `begin()`. A connection that was dropped has nothing to roll
    /// back (the server ended its transaction with it).
    package func rollback() {
        if session.isConnected {
            do { try session.run("ROLLBACK") } catch { session.drop() }
        }
        inTransaction = false
        failure = nil
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
    }

    func note(_ error: StoreError) {
        if failure == nil { failure = error }
    }

    /// Runs `query` inside the open transaction; a failure is kept for `commit()`.
    @discardableResult
    func runNoting(_ query: PostgresQuery) -> PostgresQueryResult? {
        if failure != nil { return nil }
        do { return try session.run(query) } catch {
            note(error)
            return nil
        }
    }

    // MARK: - The batch

    /// Locks `devices` for the rest of the transaction (those not locked yet, in the order of
    /// their hashes) and loads their firings, and loads the answers of event ids `ids`. Called
    /// once per transaction with all its lines' devices, before any is applied.
    package func lock(devices batch: [String], answersOf ids: [String]) throws(StoreError) {
        if let failure { throw failure }
        var new = Set<String>()
        for device in batch where devices[device] == nil { new.insert(device) }
        if !new.isEmpty {
            let hashes = Array(Set(new.map(Self.lockKey))).sorted()
            // unnest yields the (sorted) array in order: the locks are taken in that order.
            try session.run("SELECT pg_advisory_xact_lock(h) FROM unnest(\(hashes)::bigint[]) AS t(h)")
            let list = Array(new)
            for device in list { devices[device] = [:] }
            let rows = try session.run("SELECT device, campaign, time FROM firing WHERE device = ANY(\(list)::text[])").rows
            do {
                for row in rows {
                    let (device, campaign, time) = try row.decode((String, String, Int64).self)
                    devices[device, default: [:]][campaign] = time
                }
            } catch {
                throw StoreError(path: location.description, message: "cannot read the firing table: \(PostgresSession.describe(error))")
            }
        }
        let unknown = Array(Set(ids.filter { answerCache[$0] == nil && !unanswered.contains($0) }))
        if !unknown.isEmpty {
            let rows = try session.run("SELECT event, records FROM answered WHERE event = ANY(\(unknown)::text[])").rows
            unanswered.formUnion(unknown)
            do {
                for row in rows {
                    let (event, records) = try row.decode((String, ByteBuffer).self)
                    answerCache[event] = Array(records.readableBytesView)
                    unanswered.remove(event)
                }
            } catch {
                throw StoreError(path: location.description, message: "cannot read the answered table: \(PostgresSession.describe(error))")
            }
        }
    }

    /// The engine's batch (`replay`, and any batch the transaction did not lock up front): its
    /// devices locked and loaded and its ids' answers read in one go.
    package func prefetch(devicesOf events: borrowing InPlaceEventBatch, keys: inout [String?]) -> UInt64 {
        if failure != nil { return 0 }
        var batch: [String] = [], ids: [String] = []
        for i in 0..<events.count {
            let event = events[i]
            let device = String(decoding: event.device, as: UTF8.self)
            if devices[device] == nil { batch.append(device) }
            let id = String(decoding: event.id, as: UTF8.self)
            if answerCache[id] == nil && !unanswered.contains(id) { ids.append(id) }
        }
        if batch.isEmpty && ids.isEmpty { return 0 }
        do { try lock(devices: batch, answersOf: ids) } catch { note(error) }
        return UInt64(batch.count)
    }

    /// The advisory lock of a device: FNV-1a of its UTF-8 bytes, the same in every process (the
    /// standard library's hash is seeded per process). Two devices may share a lock: they then
    /// wait for each other, which is correct, only less parallel.
    static func lockKey(_ device: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// The device's firings, locked and loaded first when the batch did not name it.
    private func firings(of device: String) -> [String: Int64]? {
        if let loaded = devices[device] { return loaded }
        if failure != nil { return nil }
        do { try lock(devices: [device], answersOf: []) } catch {
            note(error)
            return nil
        }
        return devices[device]
    }

    /// The changes of the transaction, written in two statements.
    private func writeBack() throws(StoreError) {
        if !changed.isEmpty {
            var devices: [String] = [], campaigns: [String] = [], times: [Int64] = []
            for (device, firings) in changed {
                for (campaign, time) in firings {
                    devices.append(device)
                    campaigns.append(campaign)
                    times.append(time)
                }
            }
            try session.run("""
                INSERT INTO firing (device, campaign, time) SELECT * FROM unnest(\(devices)::text[], \(campaigns)::text[], \(times)::bigint[])
                ON CONFLICT (device, campaign) DO UPDATE SET time = excluded.time
                """)
        }
        if !given.isEmpty {
            let events = given.map(\.event)
            let records = given.map { ByteBuffer(bytes: $0.records) }
            try session.run("""
                INSERT INTO answered (event, records, at) SELECT e, r, \(clock) FROM unnest(\(events)::text[], \(records)::bytea[]) AS t(e, r)
                ON CONFLICT (event) DO NOTHING
                """)
        }
    }

    // MARK: - Suppression state

    package func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        firings(of: device)?[campaign.canonical].map(Timestamp.init(milliseconds:))
    }

    package func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        guard firings(of: device) != nil else { return }
        devices[device, default: [:]][campaign.canonical] = time.milliseconds
        changed[device, default: [:]][campaign.canonical] = time.milliseconds
    }

    // MARK: - Answered events

    package func answer(event id: String) -> [UInt8]? {
        if let answer = answerCache[id] { return answer }
        if unanswered.contains(id) || failure != nil { return nil }
        do { try lock(devices: [], answersOf: [id]) } catch {
            note(error)
            return nil
        }
        return answerCache[id]
    }

    package func remember(event id: String, records: [UInt8]) {
        if failure != nil { return }
        answerCache[id] = records
        unanswered.remove(id)
        given.append((id, records))
    }

    // MARK: - Inspection

    /// Every (device, campaign) firing, sorted by device then campaign.
    package func firings() throws(StoreError) -> [FiringEntry] {
        let rows = try session.run("SELECT device, campaign, time FROM firing ORDER BY device, campaign").rows
        return try decode(rows, "firing") { row in
            let (device, campaign, time) = try row.decode((String, String, Int64).self)
            return FiringEntry(device: device, campaign: CampaignID(canonical: campaign), time: Timestamp(milliseconds: time))
        }
    }

    /// Every answered event id with its records, sorted by id.
    package func answers() throws(StoreError) -> [(event: String, records: [UInt8])] {
        let rows = try session.run("SELECT event, records FROM answered ORDER BY event").rows
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
