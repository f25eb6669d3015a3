package import BeaconRules

/// The delivery ledger (delivered notifications, their response states, handled clicks and the
/// unhandled counts that `report` reads) kept in the state file next to the suppression state.
///
/// One row per ledger line, numbered in the order saved (`seq`), the line's key in a column of its
/// own; each commit saves the lines that changed in it, inside the same transaction as the events
/// and responses that changed them, so the file never holds an answered event without its ledger
/// lines. A saved line goes to the end of the table and the row it replaces is deleted by its
/// number (`ledgerRows`), so a commit writes the table's last pages and those of the lines it
/// replaced or forgot (the oldest first), where rows in key order (version 1, keys from a hash)
/// put nearly every delivery on a page of its own (docs/performance.md).
extension SQLiteStateStore {
    /// The saved ledger, or an empty one when none was saved yet. Lines load in key order (a
    /// delivery before the lines naming it), as `DeliveryLedger.Line.key` asks.
    package func loadLedger() throws(StoreError) -> DeliveryLedger {
        try settleJournal()
        var ledger = DeliveryLedger()
        var rows: [String: Int64] = [:]
        let statement = try db.prepare("SELECT key, seq, line FROM ledger WHERE app = ?1 ORDER BY key, seq")
        defer { statement.finalize() }
        statement.bind(1, app)
        // A key has one row; were there more, the last saved would be the line.
        var last: (key: String, seq: Int64, line: [UInt8])?
        while true {
            let more = try statement.step()
            let key = more ? statement.text(0) : nil
            if let row = last, key != row.key {
                do {
                    try ledger.load(line: try JSONParser.parse(row.line))
                } catch {
                    throw StoreError(path: path, message: "the delivery ledger is damaged at its line \(row.key): \(error)")
                }
                rows[row.key] = row.seq
            }
            guard let key else { break }
            last = (key, statement.int64(1), statement.blob(2))
        }
        ledgerRows = rows
        nextLedgerRow = try db.integer("SELECT coalesce(max(seq), 0) + 1 FROM ledger")
        ledgerRowsKnown = true
        return ledger
    }

    /// Saves changed ledger lines inside the open transaction.
    package func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError) {
        if lines.isEmpty { return }
        do throws(StoreError) {
            if !ledgerRowsKnown { try readLedgerRows() }
            for line in lines {
                if let seq = ledgerRows[line.key] {
                    record(.ledgerDeleted(seq: seq))
                    ledgerRows[line.key] = nil
                }
                if let failure { throw failure }
                if line.isRemoval { continue }
                record(.ledgerSaved(seq: nextLedgerRow, app: app, key: line.key, line: line.json))
                if let failure { throw failure }
                ledgerRows[line.key] = nextLedgerRow
                nextLedgerRow += 1
            }
        } catch {
            // What this transaction did is rolled back: the numbers are read again from the file.
            forgetLedgerRows()
            throw error
        }
    }

    /// The row number of each saved line, when nothing loaded the ledger first.
    private func readLedgerRows() throws(StoreError) {
        try settleJournal()
        let statement = try db.prepare("SELECT key, seq FROM ledger WHERE app = ?1")
        defer { statement.finalize() }
        statement.bind(1, app)
        var rows: [String: Int64] = [:]
        while try statement.step() { rows[statement.text(0)] = statement.int64(1) }
        ledgerRows = rows
        nextLedgerRow = try db.integer("SELECT coalesce(max(seq), 0) + 1 FROM ledger")
        ledgerRowsKnown = true
    }

    /// After a rollback: the numbers kept may name rows that are gone.
    func forgetLedgerRows() {
        ledgerRows = [:]
        ledgerRowsKnown = false
    }

    /// The ledger's table as version 2 laid it out (version 3 adds its app, `upgradeToApps`).
    static let ledgerTable = "CREATE TABLE ledger (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, line BLOB NOT NULL)"

    /// Version 1 to 2: the ledger's rows (keyed by their line key, without a row number) copied in
    /// key order into the numbered table. A file without a ledger gets the table.
    static func upgradeLedger(_ db: SQLiteConnection) throws(StoreError) {
        let exists = try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ledger'") > 0
        if !exists {
            try db.execute(ledgerTable)
            return
        }
        if try db.integer("SELECT count(*) FROM pragma_table_info('ledger') WHERE name = 'seq'") > 0 { return }
        try db.execute("""
            ALTER TABLE ledger RENAME TO ledger_by_key;
            \(ledgerTable);
            INSERT INTO ledger (key, line) SELECT key, line FROM ledger_by_key ORDER BY key;
            DROP TABLE ledger_by_key;
            """)
    }
}
