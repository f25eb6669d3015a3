package import BeaconRulesStore
import NIOCore
import PostgresNIO

extension PostgresStateStore {
    /// Every row of the database's state, read in one transaction: `beaconrules state copy` from
    /// PostgreSQL. Answers come in the order they were given (`at`), as SQLite keeps them.
    package func export() throws(StoreError) -> StateExport {
        var export = StateExport()
        try begin()
        defer { rollback() }
        export.firings = try firings()
        let answers = try session.run("SELECT event, records, at FROM answered ORDER BY at, event").rows
        export.answers = try decode(answers, "answered") { row in
            let (event, records, at) = try row.decode((String, ByteBuffer, Int64).self)
            return (event, Array(records.readableBytesView), at)
        }
        let ledger = try session.run("SELECT key, line FROM ledger ORDER BY key").rows
        export.ledger = try decode(ledger, "ledger") { row in
            let (key, line) = try row.decode((String, ByteBuffer).self)
            return (key, Array(line.readableBytesView))
        }
        export.presence = try loadPresence()
        let outbox = try session.run("SELECT seq, records, at FROM outbox ORDER BY seq").rows
        export.outbox = try decode(outbox, "outbox") { row in
            let (seq, records, at) = try row.decode((Int64, ByteBuffer, Int64).self)
            return (seq, Array(records.readableBytesView), at)
        }
        return export
    }
}
