public import BeaconRules
public import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The rest of a line pipeline's `AnswerLog` in the database: the delivery ledger, the presence
/// snapshot and the outbox, each written inside the open transaction when it changes.
extension PostgresStateStore: AnswerLog {
    /// The saved ledger, or an empty one when none was saved yet.
    public func loadLedger() throws(StoreError) -> DeliveryLedger {
        var ledger = DeliveryLedger()
        let rows = try session.run("SELECT key, line FROM ledger ORDER BY key").rows
        let lines = try decode(rows, "ledger") { row in try row.decode((String, ByteBuffer).self) }
        for (key, line) in lines {
            do {
                try ledger.load(line: try JSONParser.parse(Array(line.readableBytesView)))
            } catch {
                throw StoreError(path: location.description, message: "the delivery ledger is damaged at its line \(key): \(error)")
            }
        }
        return ledger
    }

    /// Saves changed ledger lines inside the open transaction: one upsert, one delete.
    public func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError) {
        if lines.isEmpty { return }
        if let failure { throw failure }
        let removed = lines.filter(\.isRemoval).map(\.key)
        let kept = lines.filter { !$0.isRemoval }
        if !kept.isEmpty {
            let keys = kept.map(\.key)
            let json = kept.map { ByteBuffer(bytes: $0.json) }
            try session.run("""
                INSERT INTO ledger (key, line) SELECT * FROM unnest(\(keys)::text[], \(json)::bytea[])
                ON CONFLICT (key) DO UPDATE SET line = excluded.line
                """)
        }
        if !removed.isEmpty { try session.run("DELETE FROM ledger WHERE key = ANY(\(removed)::text[])") }
    }

    public func savePresence(_ snapshot: [UInt8]) {
        let bytes = ByteBuffer(bytes: snapshot)
        runNoting("INSERT INTO presence (id, snapshot) VALUES (1, \(bytes)) ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot")
    }

    public func loadPresence() throws(StoreError) -> [UInt8]? {
        let rows = try session.run("SELECT snapshot FROM presence WHERE id = 1").rows
        return try decode(rows, "presence") { row in Array(try row.decode(ByteBuffer.self).readableBytesView) }.first
    }

    public func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        let bytes = ByteBuffer(bytes: records)
        runNoting("INSERT INTO outbox (records, at) VALUES (\(bytes), \(clock))")
    }

    public func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])] {
        let rows = try session.run("SELECT seq, records FROM outbox WHERE seq > \(after) ORDER BY seq LIMIT \(Int64(limit))").rows
        return try decode(rows, "outbox") { row in
            let (seq, records) = try row.decode((Int64, ByteBuffer).self)
            return (seq, Array(records.readableBytesView))
        }
    }
}
