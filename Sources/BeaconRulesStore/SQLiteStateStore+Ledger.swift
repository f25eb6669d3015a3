public import BeaconRules

/// The delivery ledger (delivered notifications, their response states, handled clicks and the
/// unhandled counts that `report` reads) kept in the state file next to the suppression state.
///
/// Saved whole, as the ledger's JSON lines in one row, inside the caller's transaction: `replay`
/// saves it with its last batch, so the file never holds records without their ledger.
extension SQLiteStateStore {
    /// The saved ledger, or an empty one when none was saved yet.
    public func loadLedger() throws(StoreError) -> DeliveryLedger {
        var ledger = DeliveryLedger()
        guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'responses'") > 0 else { return ledger }
        let statement = try db.prepare("SELECT lines FROM responses WHERE id = 1")
        defer { statement.finalize() }
        guard try statement.step() else { return ledger }
        let bytes = statement.blob(0)
        for (offset, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            do {
                try ledger.load(line: try JSONParser.parse(Array(line)))
            } catch {
                throw StoreError(path: path, message: "the saved delivery ledger is damaged at its line \(offset + 1): \(error)")
            }
        }
        return ledger
    }

    /// Replaces the saved ledger, inside the open transaction.
    public func saveLedger(_ ledger: DeliveryLedger) throws(StoreError) {
        try db.execute("CREATE TABLE IF NOT EXISTS responses (id INTEGER PRIMARY KEY CHECK (id = 1), lines BLOB NOT NULL)")
        var w = JSONWriter(capacity: 64 * ledger.count + 64)
        ledger.appendJSONLines(to: &w)
        let statement = try db.prepare("INSERT INTO responses (id, lines) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET lines = excluded.lines")
        defer { statement.finalize() }
        w.bytes.withUnsafeBytes { statement.bind(1, blob: $0) }
        _ = try statement.step()
    }
}
