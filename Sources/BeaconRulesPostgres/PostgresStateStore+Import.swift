package import BeaconRulesStore
import NIOCore
import PostgresNIO

extension PostgresStateStore {
    /// Writes `export` into this (empty) state in one transaction: `beaconrules state copy`.
    /// A state that already holds firings or answers is refused (a copy never merges).
    nonisolated(nonsending) package func importState(_ export: StateExport) async throws(StoreError) {
        try await begin()
        do throws(StoreError) {
            let counts = try await session.run("SELECT (SELECT count(*) FROM firing) + (SELECT count(*) FROM answered) + (SELECT count(*) FROM ledger)")
            if (try? counts.first?.decode(Int64.self)) ?? 0 > 0 {
                throw StoreError(path: location.description, message: "the database already holds a state; copy into an empty one")
            }
            for chunk in Self.chunks(export.firings.count) {
                let rows = export.firings[chunk]
                try await session.run("""
                    INSERT INTO firing (device, campaign, time)
                    SELECT * FROM unnest(\(rows.map(\.device))::text[], \(rows.map(\.campaign.canonical))::text[], \(rows.map(\.time.milliseconds))::bigint[])
                    """)
            }
            for chunk in Self.chunks(export.answers.count) {
                let rows = export.answers[chunk]
                try await session.run("""
                    INSERT INTO answered (event, records, at)
                    SELECT * FROM unnest(\(rows.map(\.event))::text[], \(rows.map { ByteBuffer(bytes: $0.records) })::bytea[], \(rows.map(\.at))::bigint[])
                    """)
            }
            for chunk in Self.chunks(export.ledger.count) {
                let rows = export.ledger[chunk]
                try await session.run("INSERT INTO ledger (key, line) SELECT * FROM unnest(\(rows.map(\.key))::text[], \(rows.map { ByteBuffer(bytes: $0.line) })::bytea[])")
            }
            try await session.run(PostgresSchema.fillLedgerDeliveries)
            if let presence = export.presence {
                try await session.run("INSERT INTO presence (id, snapshot) VALUES (1, \(ByteBuffer(bytes: presence)))")
            }
            for chunk in Self.chunks(export.outbox.count) {
                let rows = export.outbox[chunk]
                try await session.run("""
                    INSERT INTO outbox (seq, records, at)
                    SELECT * FROM unnest(\(rows.map(\.seq))::bigint[], \(rows.map { ByteBuffer(bytes: $0.records) })::bytea[], \(rows.map(\.at))::bigint[])
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
