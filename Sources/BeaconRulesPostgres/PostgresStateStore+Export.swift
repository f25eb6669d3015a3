import BeaconRules
package import BeaconRulesStore
import NIOCore
import PostgresNIO

extension PostgresStateStore {
    /// Every row of app `id`, read in one transaction: `beaconrules state copy` from PostgreSQL.
    /// Answers come in the order they were given (`at`), as SQLite keeps them.
    nonisolated(nonsending) package func export(app id: String) async throws(StoreError) -> StateExport {
        let number = try await existing(id)
        var export = StateExport()
        try await begin()
        do throws(StoreError) {
            try await read(app: number, into: &export)
        } catch {
            await rollback()
            throw error
        }
        await rollback()
        return export
    }

    /// The rows of each table into `export`, inside the open transaction.
    nonisolated(nonsending) private func read(app number: Int32, into export: inout StateExport) async throws(StoreError) {
        let firings = try await session.run("SELECT device, campaign, time FROM firing WHERE app = \(number) ORDER BY device, campaign")
        export.firings = try decode(firings, "firing") { row in
            let (device, campaign, time) = try row.decode((String, String, Int64).self)
            return FiringEntry(device: device, campaign: CampaignID(canonical: campaign), time: Timestamp(milliseconds: time))
        }
        let answers = try await session.run("SELECT event, records, at FROM answered WHERE app = \(number) ORDER BY at, event")
        export.answers = try decode(answers, "answered") { row in
            let (event, records, at) = try row.decode((String, ByteBuffer, Int64).self)
            return (event, Array(records.readableBytesView), at)
        }
        let ledger = try await session.run("SELECT key, line FROM ledger WHERE app = \(number) ORDER BY key")
        export.ledger = try decode(ledger, "ledger") { row in
            let (key, line) = try row.decode((String, ByteBuffer).self)
            return (key, Array(line.readableBytesView))
        }
        let presence = try await session.run("SELECT snapshot FROM presence WHERE app = \(number)")
        export.presence = try decode(presence, "presence") { row in Array(try row.decode(ByteBuffer.self).readableBytesView) }.first
        let outbox = try await session.run("SELECT seq, records, at FROM outbox WHERE app = \(number) ORDER BY seq")
        export.outbox = try decode(outbox, "outbox") { row in
            let (seq, records, at) = try row.decode((Int64, ByteBuffer, Int64).self)
            return (seq, Array(records.readableBytesView), at)
        }
    }
}
