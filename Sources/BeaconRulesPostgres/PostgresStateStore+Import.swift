package import BeaconRulesStore
import NIOCore
import PostgresNIO

extension PostgresStateStore {
    /// Writes `export` as the state of app `id` (given a number when new), which must hold none,
    /// in one transaction: `beaconrules state copy` into PostgreSQL (a copy never merges). Outbox
    /// entries keep their numbers unless another app has used them (then they are numbered after
    /// the last).
    nonisolated(nonsending) package func importState(_ export: StateExport, app id: String) async throws(StoreError) {
        try await begin()
        do throws(StoreError) {
            guard let number = try await number(ofApp: id, create: true) else {
                throw StoreError(path: location.description, message: "cannot give the app \"\(id)\" a number")
            }
            if try await holdsState(app: number) { throw StateApps.occupied(id, in: location.description) }
            for chunk in Self.chunks(export.firings.count) {
                let rows = export.firings[chunk]
                try await session.run("""
                    INSERT INTO firing (app, device, campaign, time)
                    SELECT \(number), * FROM unnest(\(rows.map(\.device))::text[], \(rows.map(\.campaign.canonical))::text[], \(rows.map(\.time.milliseconds))::bigint[])
                    """)
            }
            for chunk in Self.chunks(export.answers.count) {
                let rows = export.answers[chunk]
                try await session.run("""
                    INSERT INTO answered (app, event, records, at)
                    SELECT \(number), * FROM unnest(\(rows.map(\.event))::text[], \(rows.map { ByteBuffer(bytes: $0.records) })::bytea[], \(rows.map(\.at))::bigint[])
                    """)
            }
            for chunk in Self.chunks(export.ledger.count) {
                let rows = export.ledger[chunk]
                try await session.run("""
                    INSERT INTO ledger (app, key, line) SELECT \(number), * FROM unnest(\(rows.map(\.key))::text[], \(rows.map { ByteBuffer(bytes: $0.line) })::bytea[])
                    """)
            }
            try await session.run(PostgresSchema.fillLedgerDeliveries)
            if let presence = export.presence {
                try await session.run("INSERT INTO presence (app, snapshot) VALUES (\(number), \(ByteBuffer(bytes: presence)))")
            }
            let last = try decode(try await session.run("SELECT coalesce(max(seq), 0) FROM outbox"), "outbox") { try $0.decode(Int64.self) }.first ?? 0
            let keep = export.outbox.allSatisfy { $0.seq > last }
            for chunk in Self.chunks(export.outbox.count) {
                let rows = export.outbox[chunk]
                let seqs = keep ? rows.map(\.seq) : chunk.map { last + 1 + Int64($0) }
                try await session.run("""
                    INSERT INTO outbox (app, seq, records, at)
                    SELECT \(number), * FROM unnest(\(seqs)::bigint[], \(rows.map { ByteBuffer(bytes: $0.records) })::bytea[], \(rows.map(\.at))::bigint[])
                    """)
            }
            // The next outbox entry numbers on from the copied ones.
            try await session.run("SELECT setval(pg_get_serial_sequence('outbox', 'seq'), coalesce((SELECT max(seq) FROM outbox), 0) + 1, false)")
            try await commit()
        } catch {
            await rollback()
            throw error
        }
    }

    /// Ranges of at most 10,000 rows: one statement each.
    static func chunks(_ count: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: 10_000).map { $0..<min($0 + 10_000, count) }
    }
}
