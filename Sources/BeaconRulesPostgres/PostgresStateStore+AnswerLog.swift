package import BeaconRules
package import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The rest of a line pipeline's `AnswerLog` in the database: the presence snapshot and the
/// outbox (the delivery ledger is in `PostgresStateStore+Ledger`), each written inside the open
/// transaction when it changes.
extension PostgresStateStore: AnswerLog {
    package func savePresence(_ snapshot: [UInt8]) {
        let bytes = ByteBuffer(bytes: snapshot)
        runNoting("INSERT INTO presence (id, snapshot) VALUES (1, \(bytes)) ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot")
    }

    /// One instance at a time takes presence input: the one holding a session-scoped advisory
    /// lock, taken by the first to ask and held until its connection ends (the instance stops,
    /// dies, or loses the database: then the next to ask takes it, with the state saved last).
    /// After a rollback the holder is told `.gained` again: it reads the saved state back.
    package func claimPresence() throws(StoreError) -> PresenceClaim {
        if presenceHeldOn != 0 && presenceHeldOn == session.connectionNumber {
            if !presenceStale { return .held }
            presenceStale = false
            return .gained
        }
        presenceStale = false
        if let failure { throw failure }
        do {
            // The two-key form: a key space apart from the devices' (one 64-bit key each).
            let rows = try session.run("SELECT pg_try_advisory_lock(\(PostgresSchema.presenceLock.0), \(PostgresSchema.presenceLock.1))").rows
            let taken = (try? rows.first?.decode(Bool.self)) ?? false
            presenceHeldOn = taken ? session.connectionNumber : 0
            return taken ? .gained : .refused
        } catch {
            note(error)
            throw error
        }
    }

    package func loadPresence() throws(StoreError) -> [UInt8]? {
        let rows = try session.run("SELECT snapshot FROM presence WHERE id = 1").rows
        return try decode(rows, "presence") { row in Array(try row.decode(ByteBuffer.self).readableBytesView) }.first
    }

    package func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        let bytes = ByteBuffer(bytes: records)
        runNoting("INSERT INTO outbox (records, at) VALUES (\(bytes), \(clock))")
    }

    package func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])] {
        let rows = try session.run("SELECT seq, records FROM outbox WHERE seq > \(after) ORDER BY seq LIMIT \(Int64(limit))").rows
        return try decode(rows, "outbox") { row in
            let (seq, records) = try row.decode((Int64, ByteBuffer).self)
            return (seq, Array(records.readableBytesView))
        }
    }
}
