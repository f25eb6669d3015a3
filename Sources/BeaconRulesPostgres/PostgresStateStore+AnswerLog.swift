package import BeaconRules
package import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The rest of a line pipeline's `AnswerLog` in the database: the presence snapshot and the
/// outbox (the delivery ledger is in `PostgresStateStore+Ledger`). Writes are kept for `commit()`;
/// reads are answered from what `prepare(_:)` read, a miss otherwise.
extension PostgresStateStore: AnswerLog {
    /// Outbox entries one request reads at most (the pipeline's limit).
    static var outboxLimit: Int { 1000 }

    /// Replaces the saved presence snapshot, at `commit()`.
    package func savePresence(_ snapshot: [UInt8]) {
        pending.writes.append(.presence(snapshot))
    }

    /// One instance at a time takes presence input: the one holding a session-scoped advisory
    /// lock, taken by the first to ask and held until its connection ends (the instance stops,
    /// dies, or loses the database: then the next to ask takes it, with the state saved last).
    /// After a rollback the holder is told `.gained` again: it reads the saved state back. Asking
    /// for the lock is a round trip: unless this instance holds it (and has read nothing stale),
    /// the answer comes from `prepare(_:)` (`TransactionReads.presence`), a miss otherwise.
    package func claimPresence() throws(StoreError) -> PresenceClaim {
        let holds = presenceHeldOn != 0 && presenceHeldOn == session.connectionNumber
        if holds && !presenceStale { return .held }
        guard prepared.presence else {
            misses.presence = true
            return .refused
        }
        guard holds else { return .refused }
        presenceStale = false
        return .gained
    }

    /// Asks for the presence lock (unless held on this connection) and, when this instance has
    /// just taken it or must read its state again, reads the saved presence state for
    /// `loadPresence()`. Held and current: no round trip.
    nonisolated(nonsending) func preparePresence() async throws(StoreError) {
        if presenceHeldOn == 0 || presenceHeldOn != session.connectionNumber {
            // The two-key form: a key space apart from the devices' (one 64-bit key each).
            let lock = PostgresSchema.presenceLock(app: app)
            let rows = try await session.run("SELECT pg_try_advisory_lock(\(lock.0), \(lock.1))")
            let taken = (try? rows.first?.decode(Bool.self)) ?? false
            presenceHeldOn = taken ? session.connectionNumber : 0
            // Newly taken: the state another instance saved is read (`.gained`).
            if taken { presenceStale = true }
        }
        // The saved state is read only when the next claim says `.gained`.
        if presenceHeldOn != 0 && presenceStale { prepared.presenceSnapshot = try await readPresence() }
        prepared.presence = true
    }

    /// The presence snapshot `prepare(_:)` read; nil (and a miss) when none was prepared.
    package func loadPresence() throws(StoreError) -> [UInt8]? {
        guard prepared.presence else {
            misses.presence = true
            return nil
        }
        return prepared.presenceSnapshot
    }

    /// The saved presence snapshot, nil when none was saved.
    nonisolated(nonsending) package func readPresence() async throws(StoreError) -> [UInt8]? {
        let rows = try await session.run("SELECT snapshot FROM presence WHERE app = \(app)")
        return try decode(rows, "presence") { row in Array(try row.decode(ByteBuffer.self).readableBytesView) }.first
    }

    /// Appends records that fired on the clock to the outbox, at `commit()`.
    package func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        pending.writes.append(.outbox(records))
    }

    /// The outbox entries `prepare(_:)` read for a request after `after`; none (and a miss) when
    /// the request was not prepared.
    package func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])] {
        guard let entries = prepared.outbox[after] else {
            misses.outboxAfter.append(after)
            return []
        }
        return Array(entries.prefix(limit))
    }

    /// Outbox entries after sequence number `after`, oldest first, at most `limit`.
    nonisolated(nonsending) func readOutbox(after: Int64, limit: Int) async throws(StoreError) -> [(seq: Int64, records: [UInt8])] {
        let rows = try await session.run("SELECT seq, records FROM outbox WHERE app = \(app) AND seq > \(after) ORDER BY seq LIMIT \(Int64(limit))")
        return try decode(rows, "outbox") { row in
            let (seq, records) = try row.decode((Int64, ByteBuffer).self)
            return (seq, Array(records.readableBytesView))
        }
    }
}
