package import BeaconRules
package import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The delivery ledger in the database, shared by every instance: one row per saved line
/// (`DeliveryLedger.Line`), each naming its delivery. An instance loads the whole ledger when it
/// starts and saves its changes with each commit, as on SQLite; and since any instance may take
/// a response to a record another delivered, each transaction first reads again the lines of the
/// records its responses name (`TransactionReads.ledgerLinesOf`, under the responses' device
/// locks: a record's lines change only under its device's lock) and the ledger merges them in.
extension PostgresStateStore {
    /// Other instances save the same ledger.
    package var isShared: Bool { true }

    /// The saved ledger as `prepareLedger()` read it last (the store reads it when it opens):
    /// the pipeline's synchronous `loadLedger`. Taken once; read again with `prepareLedger()`.
    package func loadLedger() throws(StoreError) -> DeliveryLedger {
        guard let ledger = preparedLedger else {
            throw StoreError(path: location.description, message: "the delivery ledger was not read first (prepareLedger())")
        }
        preparedLedger = nil
        return ledger
    }

    /// Reads the saved ledger for the next `loadLedger()` (after a rollback, the pipeline takes
    /// its changes back by loading it again).
    nonisolated(nonsending) package func prepareLedger() async throws(StoreError) {
        preparedLedger = try await readLedger()
    }

    /// The saved ledger, or an empty one when none was saved yet.
    nonisolated(nonsending) package func readLedger() async throws(StoreError) -> DeliveryLedger {
        var ledger = DeliveryLedger()
        let rows = try await session.run("SELECT key, line FROM ledger WHERE app = \(app) ORDER BY key")
        let lines = try decode(rows, "ledger") { row in try row.decode((String, ByteBuffer).self) }
        countsSaved.removeAll()
        for (key, buffer) in lines {
            let line = Array(buffer.readableBytesView)
            do {
                let value = try JSONParser.parse(line)
                try ledger.load(line: value)
                if key.hasPrefix("3:") { countsSaved[key] = value["count"]?.integerValue ?? 0 }
            } catch {
                throw StoreError(path: location.description, message: "the delivery ledger is damaged at its line \(key): \(error)")
            }
        }
        return ledger
    }

    /// The lines `prepare(_:)` read for the records `recordIDs` name; none (and a miss) for
    /// records it was not asked for.
    package func ledgerLines(naming recordIDs: [String]) throws(StoreError) -> [[UInt8]] {
        let missing = recordIDs.filter { !prepared.ledgerLinesOf.contains($0) }
        if !missing.isEmpty {
            misses.ledgerLinesOf += missing
            return []
        }
        return prepared.ledgerLines
    }

    /// The lines of the records `recordIDs` name, in key order: for each, the delivery it is
    /// (or is a rescheduled id of) with every line naming that delivery, and its tombstone.
    ///
    /// Two index lookups: the lines found by key (a delivery, a rescheduled id and a tombstone
    /// each name a delivery, their own or the one they repeat), then every line naming those
    /// deliveries. (Written as `key = ANY(...) OR delivery IN (...)`, PostgreSQL 15 scanned the
    /// whole table instead: 129 ms against 0.19 ms on a ledger of 400,000 lines.)
    nonisolated(nonsending) func readLedgerLines(naming recordIDs: [String]) async throws(StoreError) -> [[UInt8]] {
        let keys = Array(Set(recordIDs.flatMap(DeliveryLedger.lineKeys(naming:))))
        let rows = try await session.run("""
            SELECT key, line FROM ledger WHERE app = \(app) AND delivery IN (SELECT delivery FROM ledger WHERE app = \(app) AND key = ANY(\(keys)::text[]))
            ORDER BY key
            """)
        return try decode(rows, "ledger") { row in Array(try row.decode((String, ByteBuffer).self).1.readableBytesView) }
    }

    /// Saves changed ledger lines with the open transaction, at `commit()`.
    package func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError) {
        if lines.isEmpty { return }
        pending.writes.append(.ledger(lines))
    }

    /// Writes changed ledger lines: one upsert, one delete, and a statement per unhandled count
    /// that changed (rare: clicks no handler took).
    nonisolated(nonsending) func writeLedger(_ lines: [DeliveryLedger.Line]) async throws(StoreError) {
        let removed = lines.filter(\.isRemoval).map(\.key)
        let kept = lines.filter { !$0.isRemoval && !$0.isCount }
        if !kept.isEmpty {
            let keys = kept.map(\.key)
            let json = kept.map { ByteBuffer(bytes: $0.json) }
            let deliveries = kept.map { $0.delivery ?? "" }
            try await session.run("""
                INSERT INTO ledger (app, key, line, delivery)
                SELECT \(app), k, l, NULLIF(d, '') FROM unnest(\(keys)::text[], \(json)::bytea[], \(deliveries)::text[]) AS t(k, l, d)
                ON CONFLICT (app, key) DO UPDATE SET line = excluded.line, delivery = excluded.delivery
                """)
        }
        // In key order: two instances adding to the same counts lock their rows in one order.
        for line in lines.filter({ $0.isCount && !$0.isRemoval }).sorted(by: { $0.key < $1.key }) { try await add(count: line) }
        if !removed.isEmpty { try await session.run("DELETE FROM ledger WHERE app = \(app) AND key = ANY(\(removed)::text[])") }
    }

    /// A step of the sweep over the saved ledger (`sweepSavedDeliveries`), run at `commit()`;
    /// returns 0 (what it forgets is known only then).
    package func forgetSavedDeliveries(windowEndedBy cutoff: Int64, window: Int64, limit: Int) throws(StoreError) -> Int {
        pending.writes.append(.forgetSavedDeliveries(cutoff: cutoff, window: window, limit: limit))
        return 0
    }

    /// The next `limit` saved lines after the last step's, in key order: deliveries among them
    /// whose window ended by `cutoff` are deleted with every line naming them, a tombstone left
    /// for each of their ids (as `DeliveryLedger` writes them); tombstones written two windows
    /// before `cutoff` are deleted. What an instance holds in memory it forgets itself (the same rows,
    /// deleted again, change nothing); this step is for what no instance holds.
    nonisolated(nonsending) func sweepSavedDeliveries(windowEndedBy cutoff: Int64, window: Int64, limit: Int) async throws(StoreError) -> Int {
        let rows = try await session.run("SELECT key, line FROM ledger WHERE app = \(app) AND key > \(ledgerSweep) ORDER BY key LIMIT \(Int64(limit))")
        var expired: [String: Int64] = [:], staleTombstones: [String] = []
        var seen = 0
        for row in rows {
            guard let (key, line) = try? row.decode((String, ByteBuffer).self) else { continue }
            seen += 1
            ledgerSweep = key
            let isDelivery = key.hasPrefix("0:")
            guard isDelivery || key.hasPrefix("4:") else { continue }
            let value = try? JSONParser.parse(Array(line.readableBytesView))
            if isDelivery {
                // A delivery saved before deliveries had a time has none: its window is taken as passed.
                let fired = value?["fired"]?.integerValue ?? 0
                let (start, overflow) = fired.multipliedReportingOverflow(by: 1000)
                let (end, late) = start.addingReportingOverflow(window)
                if !overflow && !late && end <= cutoff { expired[String(key.dropFirst(2))] = fired }
            } else {
                // Kept two windows after it was forgotten: at least as long as a ledger keeps its own.
                let (end, late) = (value?["at"]?.integerValue ?? 0).addingReportingOverflow(window &* 2)
                if !late && end <= cutoff { staleTombstones.append(key) }
            }
        }
        // The end of the table: the next step starts again from its beginning.
        if seen < limit { ledgerSweep = "" }
        if !expired.isEmpty {
            let gone = try await session.run("""
                DELETE FROM ledger WHERE app = \(app) AND delivery = ANY(\(Array(expired.keys))::text[]) AND key NOT LIKE '4:%' RETURNING key, delivery
                """)
            var keys: [String] = [], lines: [ByteBuffer] = [], ids: [String] = []
            for row in gone {
                guard let (key, delivery) = try? row.decode((String, String).self), key.hasPrefix("0:") || key.hasPrefix("1:"),
                      let fired = expired[delivery] else { continue }
                let id = String(key.dropFirst(2))
                keys.append("4:" + id)
                lines.append(ByteBuffer(string: #"{"forgotten":"\#(id)","fired":\#(fired),"at":\#(cutoff)}"#))
                ids.append(id)
            }
            if !keys.isEmpty {
                try await session.run("""
                    INSERT INTO ledger (app, key, line, delivery) SELECT \(app), * FROM unnest(\(keys)::text[], \(lines)::bytea[], \(ids)::text[])
                    ON CONFLICT (app, key) DO NOTHING
                    """)
            }
        }
        if !staleTombstones.isEmpty { try await session.run("DELETE FROM ledger WHERE app = \(app) AND key = ANY(\(staleTombstones)::text[])") }
        return expired.count
    }

    /// An unhandled count: what it grew by since this instance last saw it is added to the
    /// saved count (which other instances add to as well).
    nonisolated(nonsending) private func add(count line: DeliveryLedger.Line) async throws(StoreError) {
        guard let count = (try? JSONParser.parse(line.json))?["count"]?.integerValue else {
            throw StoreError(path: location.description, message: "the ledger line \(line.key) has no count")
        }
        let delta = count - (countsSaved[line.key] ?? 0)
        countsPending[line.key] = count
        if delta == 0 { return }
        try await session.run("""
            INSERT INTO ledger (app, key, line) VALUES (\(app), \(line.key), \(ByteBuffer(bytes: line.json)))
            ON CONFLICT (app, key) DO UPDATE SET line = convert_to(jsonb_set(convert_from(ledger.line, 'UTF8')::jsonb, '{count}',
            to_jsonb((convert_from(ledger.line, 'UTF8')::jsonb ->> 'count')::bigint + \(delta)))::text, 'UTF8')
            """)
    }
}
