package import BeaconRulesStore
import NIOCore
import PostgresNIO

extension PostgresStateStore {
    /// Every row of the database's state, read in one transaction: `beaconrules state copy` from
    /// PostgreSQL. Answers come in the order they were given (`at`), as SQLite keeps them.
    nonisolated(nonsending) package func export() async throws(StoreError) -> StateExport {
        var export = StateExport()
        try await begin()
        do throws(StoreError) {
            try await read(into: &export)
        } catch {
            await rollback()
            throw error
        }
        await rollback()
        return export
    }

    /// The rows of each table into `export`, inside the open transaction.
    nonisolated(nonsending) private func read(into export: inout StateExport) async throws(StoreError) {
        export.firings = try await firings()
        let answers = try await session.run("SELECT event, records, at FROM answered ORDER BY at, event")
        export.answers = try decode(answers, "answered") { row in
            let (event, records, at) = try row.decode((String, ByteBuffer, Int64).self)
            return (event, Array(records.readableBytesView), at)
        }
        let ledger = try await session.run("SELECT key, line FROM ledger ORDER BY key")
        export.ledger = try decode(ledger, "ledger") { row in
            let (key, line) = try row.decode((String, ByteBuffer).self)
            return (key, Array(line.readableBytesView))
        }
        export.presence = try await readPresence()
        let outbox = try await session.run("SELECT seq, records, at FROM outbox ORDER BY seq")
        export.outbox = try decode(outbox, "outbox") { row in
            let (seq, records, at) = try row.decode((Int64, ByteBuffer, Int64).self)
            return (seq, Array(records.readableBytesView), at)
        }
    }
}
