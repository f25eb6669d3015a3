package import BeaconRules

/// Everything a state holds, as rows, to move it to another store (`beaconrules state copy`).
package struct StateExport: Sendable {
    /// The suppression and once-only state: the last firing per (device, campaign).
    package var firings: [FiringEntry] = []
    /// Answered event ids, their records and when they were given (ms, the answer retention's clock).
    package var answers: [(event: String, records: [UInt8], at: Int64)] = []
    /// The delivery ledger's saved lines, by their keys.
    package var ledger: [(key: String, line: [UInt8])] = []
    /// The presence layer's snapshot, if one was saved.
    package var presence: [UInt8]?
    /// Records that fired on the clock, with their sequence numbers and when they were given.
    package var outbox: [(seq: Int64, records: [UInt8], at: Int64)] = []

    /// An empty state.
    package init() {}

    /// What `beaconrules state copy` prints: how many rows of each kind went.
    package var summary: String {
        "\(firings.count) firings, \(answers.count) answers, \(ledger.count) ledger lines, \(outbox.count) outbox entries"
    }
}

extension SQLiteStateStore {
    /// Every row of the app served now (`use(app:)`), read in one transaction.
    package func export() throws(StoreError) -> StateExport {
        var export = StateExport()
        try begin()
        defer { rollback() }
        try goDirect()
        export.firings = try firings()
        let answers = try db.prepare("SELECT event, records, at FROM answered WHERE app = ?1 ORDER BY rowid")
        defer { answers.finalize() }
        answers.bind(1, app)
        while try answers.step() { export.answers.append((answers.text(0), try records(stored: answers.blob(1)), answers.int64(2))) }
        let ledger = try db.prepare("SELECT key, line FROM ledger WHERE app = ?1 ORDER BY key")
        defer { ledger.finalize() }
        ledger.bind(1, app)
        while try ledger.step() { export.ledger.append((ledger.text(0), ledger.blob(1))) }
        export.presence = try loadPresence()
        let outbox = try db.prepare("SELECT seq, records, at FROM outbox WHERE app = ?1 ORDER BY seq")
        defer { outbox.finalize() }
        outbox.bind(1, app)
        while try outbox.step() { export.outbox.append((outbox.int64(0), outbox.blob(1), outbox.int64(2))) }
        return export
    }

    /// Whether any app of the file holds a firing, an answer or a ledger line.
    package func holdsState() throws(StoreError) -> Bool {
        try settleJournal()
        return try db.integer("SELECT (SELECT count(*) FROM firing) + (SELECT count(*) FROM answered) + (SELECT count(*) FROM ledger)") > 0
    }
}

extension SQLiteStateStore {
    /// Writes `export` as the state of the app served now, which must hold none, in one
    /// transaction: `beaconrules state copy` into SQLite (a copy never merges). Answers keep their
    /// order of `at`, so retention forgets the oldest first; outbox entries keep their numbers
    /// unless another app of the file has used them (then they are numbered after its last).
    package func importState(_ export: StateExport) throws(StoreError) {
        try begin()
        do throws(StoreError) {
            if try appHoldsState() { throw StateApps.occupied(try appID(), in: path) }
            for firing in export.firings { recordFiring(device: firing.device, campaign: firing.campaign, at: firing.time) }
            let answer = try db.prepare("INSERT INTO answered (app, event, records, at) VALUES (?4, ?1, ?2, ?3)")
            defer { answer.finalize() }
            for row in export.answers.sorted(by: { $0.at < $1.at }) {
                defer { answer.reset() }
                answer.bind(1, row.event)
                row.records.withUnsafeBytes { answer.bind(2, blob: $0) }
                answer.bind(3, row.at)
                answer.bind(4, app)
                _ = try answer.step()
            }
            journal.nextAnswerRow = try db.integer("SELECT coalesce(max(rowid), 0) + 1 FROM answered")
            // Numbered in key order, the order they load in, after the other apps' lines.
            let first = try db.integer("SELECT coalesce(max(seq), 0) + 1 FROM ledger")
            for (seq, row) in export.ledger.sorted(by: { $0.key < $1.key }).enumerated() {
                defer { saveLedgerLine.reset() }
                saveLedgerLine.bind(1, first + Int64(seq))
                saveLedgerLine.bind(2, row.key)
                row.line.withUnsafeBytes { saveLedgerLine.bind(3, blob: $0) }
                saveLedgerLine.bind(4, app)
                _ = try saveLedgerLine.step()
            }
            forgetLedgerRows()
            if let presence = export.presence { savePresence(presence) }
            let outbox = try db.prepare("INSERT INTO outbox (seq, records, at, app) VALUES (?1, ?2, ?3, ?4)")
            defer { outbox.finalize() }
            let last = try db.integer("SELECT coalesce(max(seq), 0) FROM outbox")
            let keep = export.outbox.allSatisfy { $0.seq > last }
            for (index, row) in export.outbox.enumerated() {
                defer { outbox.reset() }
                outbox.bind(1, keep ? row.seq : last + 1 + Int64(index))
                row.records.withUnsafeBytes { outbox.bind(2, blob: $0) }
                outbox.bind(3, row.at)
                outbox.bind(4, app)
                _ = try outbox.step()
            }
            pendingAnswers += export.answers.count
            try commit()
        } catch {
            rollback()
            throw error
        }
    }
}
