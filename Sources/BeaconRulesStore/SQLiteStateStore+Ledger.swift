public import BeaconRules

/// The delivery ledger (delivered notifications, their response states, handled clicks and the
/// unhandled counts that `report` reads) kept in the state file next to the suppression state.
///
/// One row per ledger line, keyed; each commit saves the lines that changed in it, inside the
/// same transaction as the events and responses that changed them, so the file never holds an
/// answered event without its ledger lines.
extension SQLiteStateStore {
    /// The saved ledger, or an empty one when none was saved yet.
    public func loadLedger() throws(StoreError) -> DeliveryLedger {
        var ledger = DeliveryLedger()
        guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ledger'") > 0 else { return ledger }
        let statement = try db.prepare("SELECT key, line FROM ledger ORDER BY key")
        defer { statement.finalize() }
        while try statement.step() {
            let key = statement.text(0)
            do {
                try ledger.load(line: try JSONParser.parse(statement.blob(1)))
            } catch {
                throw StoreError(path: path, message: "the delivery ledger is damaged at its line \(key): \(error)")
            }
        }
        return ledger
    }

    /// Saves changed ledger lines inside the open transaction.
    public func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError) {
        if lines.isEmpty { return }
        let statement = saveLedgerLine
        defer { statement.reset() }
        for line in lines {
            if line.isRemoval {
                defer { deleteLedgerLine.reset() }
                deleteLedgerLine.bind(1, line.key)
                _ = try deleteLedgerLine.step()
                continue
            }
            statement.bind(1, line.key)
            line.json.withUnsafeBytes { statement.bind(2, blob: $0) }
            _ = try statement.step()
            statement.reset()
        }
    }
}
