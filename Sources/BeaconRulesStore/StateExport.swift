package import BeaconRules

/// Everything a state holds, as rows, to move it to another store (`beaconrules state copy`).
package struct StateExport: Sendable {
    package var firings: [FiringEntry] = []
    /// Answered event ids, their records and when they were given (ms, the answer retention's clock).
    package var answers: [(event: String, records: [UInt8], at: Int64)] = []
    package var ledger: [(key: String, line: [UInt8])] = []
    package var presence: [UInt8]?
    package var outbox: [(seq: Int64, records: [UInt8], at: Int64)] = []

    package init() {}
}

extension SQLiteStateStore {
    /// Every row of the file, read in one transaction.
    package func export() throws(StoreError) -> StateExport {
        var export = StateExport()
        try begin()
        defer { rollback() }
        export.firings = try firings()
        let answers = try db.prepare("SELECT event, records, at FROM answered ORDER BY rowid")
        defer { answers.finalize() }
        while try answers.step() { export.answers.append((answers.text(0), try records(stored: answers.blob(1)), answers.int64(2))) }
        let ledger = try db.prepare("SELECT key, line FROM ledger ORDER BY key")
        defer { ledger.finalize() }
        while try ledger.step() { export.ledger.append((ledger.text(0), ledger.blob(1))) }
        export.presence = try loadPresence()
        let outbox = try db.prepare("SELECT seq, records, at FROM outbox ORDER BY seq")
        defer { outbox.finalize() }
        while try outbox.step() { export.outbox.append((outbox.int64(0), outbox.blob(1), outbox.int64(2))) }
        return export
    }
}
