/// The journal (issue 32, state file version 5): a transaction of the event path commits one
/// row, a slot of `journal (seq, change)` (below), holding its whole change (`JournalEntry`), instead of
/// writing the pages of four B-trees (`answered`, its index `answered_event`, `firing`, `ledger`).
/// The changes stay in memory (`Journal`: the overlay, which `lastFiring`, `lastFirings`,
/// `answer(event:)` and the retention sweep of `firing` read first) until they are folded into
/// the tables: in short steps of the oldest `journalStepRows` rows whenever the owner is idle
/// (`foldStep()`, no line waiting), and whole (`fold()`) when the next transaction begins with no
/// slot left or `journalFoldBytes` in the journal, and before anything reads what only the tables
/// answer. A fold applies the oldest rows' changes and blanks the slots they came from in one
/// transaction, so a crash before, during or after it loses nothing: what a fold did not make
/// durable is still in the journal, replayed when the file is opened (`replayJournal`).
///
/// A transaction starts journaled (no SQL transaction is opened). A write the journal does not
/// hold (a record tail, the outbox, the presence snapshot, retention's deletes, the space given
/// back, a transaction past `journalEntryLimit` bytes) or a read of what only the tables can
/// answer (the ledger's rows, an export, the whole firings or answers) turns it direct
/// (`goDirect()`): `BEGIN IMMEDIATE`, the journal folded inside it, the transaction's own changes
/// written, and from then on every write goes to the tables as before version 5.
///
/// The table holds `journalFoldRows` slots, each a blank (`journalSlotBytes` zero bytes) until a
/// commit overwrites it: the commits fill slots 1, 2, ... in order, a fold blanks the oldest
/// rows' slots, and once every row is folded the next commit takes slot 1 again. Rows appended and deleted would allocate a page every few commits from the free
/// list (the page, its parent, page 1, the free list's trunk and a pointer-map page: five frames
/// where the row's own leaf is one); a slot overwritten by an entry no larger than the blank is
/// rewritten on its own leaf page.
struct Journal {
    struct FiringKey: Hashable {
        var app: Int64
        var device: String
        var campaign: String
    }
    struct AnswerKey: Hashable {
        var app: Int64
        var event: String
    }
    enum Mode {
        /// No transaction open.
        case idle
        /// The open transaction's writes go to `pending`, committed as one journal row.
        case journaling
        /// The open transaction writes to the tables (the journal folded into it).
        case direct
    }
    /// One committed transaction's change: the slot it was written to, its number (counted up
    /// since the store opened: what the overlay tags its values with) and its encoded bytes.
    struct Row {
        var number: Int64
        var slot: Int64
        var changes: [StateChange]
        var bytes: Int
    }

    var mode = Mode.idle
    /// The open transaction's changes while it is journaled, and about their encoded size.
    var pending: [StateChange] = []
    var pendingBytes = 0
    /// Committed rows not yet folded into the tables, oldest first, in consecutive slots, and
    /// their bytes.
    var committed: [Row] = []
    var bytes = 0
    /// The slot the next commit overwrites: every slot from it on is blank, and so is every slot
    /// before the oldest row of `committed` (a fold blanks the oldest rows first).
    var nextSlot: Int64 = 1
    /// The number the next committed row takes; the open transaction's changes are tagged with it.
    var nextRow: Int64 = 1
    /// The overlay: the newest suppression time and the answers of `committed` and `pending`,
    /// each with the number of the row it came from, so that a fold of the oldest rows drops
    /// exactly what it wrote to the tables (a later row's change of the same key stays).
    var firings: [FiringKey: (time: Int64, row: Int64)] = [:]
    var answers: [AnswerKey: (stored: [UInt8], row: Int64)] = [:]
    /// The row number the next answer takes (the table's largest and the journal's, plus one).
    var nextAnswerRow: Int64 = 1
    /// Folds so far (a step of a few rows counts as one), and the pages they wrote to the WAL.
    var folds = 0
    var foldPages = 0
    /// Pages the last commit wrote to the WAL (a journaled commit: its row's pages).
    var lastCommitPages = 0

    /// Unfolded rows.
    var rows: Int { committed.count }

    /// Whether the overlay holds what the tables do not: not inside a transaction gone direct,
    /// whose tables hold it all.
    var overlayValid: Bool { mode != .direct }

    mutating func overlay(_ change: StateChange, row: Int64) {
        switch change {
        case .firing(let app, let device, let campaign, let time):
            firings[FiringKey(app: app, device: device, campaign: campaign)] = (time, row)
        case .answer(_, let app, let event, let stored, _):
            answers[AnswerKey(app: app, event: event)] = (stored, row)
        case .ledgerDeleted, .ledgerSaved:
            break
        }
    }

    /// After a rollback: the overlay of the committed changes alone.
    mutating func rebuildOverlay() {
        firings.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
        for row in committed {
            for change in row.changes { overlay(change, row: row.number) }
        }
    }

    /// The open transaction committed as the row in slot `slot`.
    mutating func commitPending(slot: Int64, bytes entry: Int) {
        committed.append(Row(number: nextRow, slot: slot, changes: pending, bytes: entry))
        nextRow += 1
        nextSlot = slot + 1
        bytes += entry
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
    }

    /// After a fold of the oldest `count` rows: they leave, and so does every value of the
    /// overlay they gave that no later row changed. When none is left every slot is blank, and
    /// the next commit takes the first.
    mutating func folded(oldest count: Int) {
        if count >= committed.count {
            folded()
            return
        }
        let last = committed[count - 1].number
        for row in committed[..<count] {
            bytes -= row.bytes
            for change in row.changes {
                switch change {
                case .firing(let app, let device, let campaign, _):
                    let key = FiringKey(app: app, device: device, campaign: campaign)
                    if let newest = firings[key], newest.row <= last { firings[key] = nil }
                case .answer(_, let app, let event, _, _):
                    let key = AnswerKey(app: app, event: event)
                    if let newest = answers[key], newest.row <= last { answers[key] = nil }
                case .ledgerDeleted, .ledgerSaved:
                    break
                }
            }
        }
        committed.removeFirst(count)
    }

    /// After a whole fold: the tables hold everything, every slot is blank.
    mutating func folded() {
        committed.removeAll(keepingCapacity: true)
        bytes = 0
        nextSlot = 1
        firings.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
    }
}

extension SQLiteStateStore {
    /// The journal's table (version 5).
    static let journalTable = "CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, change BLOB NOT NULL)"

    /// The slots: when the next commit would find none left (or the journal holds
    /// `journalFoldBytes`), `begin()` folds everything first, whatever the load.
    static let journalFoldRows = 256
    /// A blank slot's size: three to a page of 4 KiB, about the size of one event's entry.
    static let journalSlotBytes = 1200
    /// Journal bytes past which the next `begin()` folds first: 1 MiB.
    static let journalFoldBytes = 1 << 20
    /// The rows a fold step takes when the owner is idle (`foldStep()`): a short transaction, so
    /// that a line arriving meanwhile waits little; a step runs once the journal holds this many.
    /// Measured at 2,000 events/s against 8 and 16 (docs/performance.md, "The fold in steps"):
    /// the lowest p99, for the most WAL a row.
    static let journalStepRows = 4
    /// Rows from which a step is taken once the replies are sent, even with work waiting
    /// (`catchUpStep()`).
    static let journalCatchUpRows = 64
    /// A transaction whose changes pass this many bytes goes direct: a large group commit writes
    /// its pages once, to the tables.
    static let journalEntryLimit = 64 << 10

    /// Unfolded journal rows (tests, metrics).
    package var journalRows: Int { journal.rows }
    /// Folds so far (a step counts as one).
    package var journalFolds: Int { journal.folds }
    /// Pages the last commit wrote to the WAL.
    package var lastCommitPages: Int { journal.lastCommitPages }

    /// A change of the open transaction: into the journal while it is journaled (and the
    /// overlay), to the tables otherwise. Noted on failure, as the `SuppressionStore` calls are.
    func record(_ change: StateChange) {
        if journal.mode == .journaling {
            // An id answered twice fails as the table's unique key would (the pipeline looks an
            // id up before it answers it, so only a caller's error does this). An id of the table
            // (folded) answered again is not seen here: the fold lets the journal's answer win.
            if case .answer(_, let app, let event, _, _) = change, journal.answers[Journal.AnswerKey(app: app, event: event)] != nil {
                note(StoreError(path: path, message: "UNIQUE constraint failed: answered.app, answered.event (event \(event))"))
                return
            }
            journal.pending.append(change)
            journal.pendingBytes += change.size
            journal.overlay(change, row: journal.nextRow)
            if journal.pendingBytes > Self.journalEntryLimit { _ = writesTables() }
            return
        }
        do { try write(change) } catch { note(error) }
    }

    /// Writes one change to its table. `folding`: the change comes from the journal (a fold, the
    /// replay at open), where an answer to an id the table holds already replaces it (the
    /// journal's is the one the reads saw) instead of failing every fold after it.
    func write(_ change: StateChange, folding: Bool = false) throws(StoreError) {
        switch change {
        case .firing(let app, let device, let campaign, let time):
            defer { upsertFiring.reset() }
            upsertFiring.bind(1, device)
            upsertFiring.bind(2, campaign)
            upsertFiring.bind(3, time)
            upsertFiring.bind(4, app)
            _ = try upsertFiring.step()
        case .answer(let row, let app, let event, let stored, let at):
            try writeAnswer(folding ? foldAnswer : insertAnswer, row: row, app: app, event: event, stored: stored, at: at)
            if folding && db.changes == 0 {
                try writeAnswer(replaceAnswer, row: row, app: app, event: event, stored: stored, at: at)
                // Counted twice, as the table's answer and as the journal's (as `remember` counts:
                // in the open transaction until it commits).
                if inTransaction { pendingAnswers -= 1 } else { heldAnswers -= 1 }
            }
        case .ledgerDeleted(let seq):
            defer { deleteLedgerLine.reset() }
            deleteLedgerLine.bind(1, seq)
            _ = try deleteLedgerLine.step()
        case .ledgerSaved(let seq, let app, let key, let line):
            defer { saveLedgerLine.reset() }
            saveLedgerLine.bind(1, seq)
            saveLedgerLine.bind(2, key)
            line.withUnsafeBytes { saveLedgerLine.bind(3, blob: $0) }
            saveLedgerLine.bind(4, app)
            _ = try saveLedgerLine.step()
        }
    }

    /// An answer's row through `statement` (`insertAnswer`, `foldAnswer`, `replaceAnswer`: event
    /// ?1, records ?2, at ?3, app ?4, row ?5).
    private func writeAnswer(_ statement: SQLiteStatement, row: Int64, app: Int64, event: String, stored: [UInt8], at: Int64) throws(StoreError) {
        var id = event
        // Bound without copies: both stay valid until the statement is reset, in the closures.
        let result: Result<Bool, StoreError> = id.withUTF8 { utf8 in
            stored.withUnsafeBytes { bytes in
                defer { statement.reset() }
                statement.bind(1, borrowingText: utf8)
                statement.bind(2, borrowing: bytes)
                statement.bind(3, at)
                statement.bind(4, app)
                statement.bind(5, row)
                do throws(StoreError) { return .success(try statement.step()) } catch { return .failure(error) }
            }
        }
        _ = try result.get()
    }

    /// Turns the open journaled transaction direct: `BEGIN IMMEDIATE`, the committed journal
    /// folded into it (its slots blanked), the transaction's own changes written. Nothing when no
    /// transaction is open or it is direct already.
    func goDirect() throws(StoreError) {
        guard inTransaction, journal.mode == .journaling else { return }
        if let failure { throw failure }
        try db.execute("BEGIN IMMEDIATE")
        journal.mode = .direct
        do throws(StoreError) {
            try foldOldest(journal.rows)
            for change in journal.pending { try write(change) }
            journal.pending.removeAll(keepingCapacity: true)
            journal.pendingBytes = 0
        } catch {
            note(error)
            throw error
        }
    }

    /// `goDirect()` from a call that cannot throw: false (the failure noted) when it failed.
    func writesTables() -> Bool {
        do {
            try goDirect()
            return true
        } catch {
            note(error)
            return false
        }
    }

    /// Before a read that only the tables answer: inside a transaction it goes direct, outside
    /// one the journal is folded.
    func settleJournal() throws(StoreError) {
        if inTransaction { try goDirect() } else { try fold() }
    }

    /// The oldest `count` committed rows' changes written, in order, and their slots blanked,
    /// inside the open SQL transaction.
    private func foldOldest(_ count: Int) throws(StoreError) {
        if count == 0 { return }
        let rows = journal.committed[..<count]
        for row in rows {
            for change in row.changes { try write(change, folding: true) }
        }
        defer { blankJournalSlots.reset() }
        blankJournalSlots.bind(1, rows[rows.startIndex].slot)
        blankJournalSlots.bind(2, rows[rows.endIndex - 1].slot)
        _ = try blankJournalSlots.step()
    }

    /// Whether a slot's bytes are a blank (no commit wrote it since the last fold).
    static func isBlank(_ change: [UInt8]) -> Bool { change.first ?? 0 == 0 }

    /// The slots, blank: those missing added (a new file, one of version 4), the others blanked.
    /// Inside the open SQL transaction.
    func blankJournal() throws(StoreError) {
        try db.execute("""
            UPDATE journal SET change = zeroblob(\(Self.journalSlotBytes)) WHERE substr(change, 1, 1) <> x'00';
            \(Self.journalSlots)
            """)
    }

    /// The slots that are missing, added blank.
    static let journalSlots = """
        WITH RECURSIVE slot(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM slot WHERE n < \(journalFoldRows))
        INSERT OR IGNORE INTO journal (seq, change) SELECT n, zeroblob(\(journalSlotBytes)) FROM slot;
        """

    /// Folds the whole journal into the tables (`fold(oldest:synced:)`), not synced.
    package func fold() throws(StoreError) {
        try fold(oldest: journal.rows, synced: false)
    }

    /// Folds the oldest `count` rows of the journal into the tables and blanks their slots, in a
    /// transaction of its own, between two of the owner's. Unless `synced` its commit is not
    /// synced (`synchronous = NORMAL`): until a later commit syncs the WAL (which holds the fold's
    /// frames before its own), a crash loses the fold and keeps the journal's rows, which are
    /// folded again at open. A step (`foldStep()`) is synced, while the owner is idle, so that
    /// the next reply's commit syncs its own page and not the step's. The rows left are the
    /// newest, in the slots after those blanked: replayed at open in order, they are exactly what
    /// the tables lack.
    package func fold(oldest count: Int, synced: Bool) throws(StoreError) {
        let count = min(count, journal.rows)
        guard !inTransaction, count > 0 else { return }
        let unsynced = path != ":memory:" && !synced
        if unsynced { try db.execute("PRAGMA synchronous = NORMAL") }
        defer { if unsynced { try? db.execute("PRAGMA synchronous = FULL") } }
        try db.execute("BEGIN IMMEDIATE")
        let held = heldAnswers
        do throws(StoreError) {
            try foldOldest(count)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            heldAnswers = held
            throw error
        }
        journal.folded(oldest: count)
        journal.folds += 1
        let pages = takePagesWritten()
        journal.foldPages += pages
    }

    /// When the owner is idle (no work waiting, the replies sent): one short step of the fold,
    /// `journalStepRows` rows, synced, once the journal holds that many; or, when the slots are nearly
    /// used up, the few rows left, so that the next commit starts again at the first slot and
    /// `begin()` never has to fold on a transaction's way. Whether another step is due. A failure
    /// leaves the journal as it is (the next `begin()` past the bound tries again, and reports it).
    @discardableResult
    package func foldStep() -> Bool {
        guard !inTransaction, journal.rows > 0 else { return false }
        let nearlyFull = journal.nextSlot > Int64(Self.journalFoldRows - Self.journalStepRows)
        guard journal.rows >= Self.journalStepRows || nearlyFull else { return false }
        do { try fold(oldest: Self.journalStepRows, synced: true) } catch { return false }
        return journal.rows >= Self.journalStepRows || (nearlyFull && journal.rows > 0)
    }

    /// Once the replies are sent, work waiting or not: when the journal holds
    /// `journalCatchUpRows` rows (the owner was seldom idle: a high rate), one step, not synced
    /// (the next commit syncs it), so that the rows stay far from the last slot and `begin()`
    /// never folds them all on a transaction's way.
    package func catchUpStep() {
        guard !inTransaction, journal.rows >= Self.journalCatchUpRows else { return }
        try? fold(oldest: Self.journalStepRows, synced: false)
    }

    /// At open: the entries a crash left in the journal applied to the tables, in order, and blanked,
    /// in one transaction (so a crash during it leaves them to the next open). The entries are the
    /// slots that are not blank: a fold blanks the oldest rows' slots, and the commits fill the
    /// slots after the last one written, so those left are consecutive and in the order committed.
    /// An entry that does not decode stops the open with an error naming it.
    func replayJournal() throws(StoreError) {
        let rows = try db.prepare("SELECT seq, change FROM journal ORDER BY seq")
        defer { rows.finalize() }
        var entries: [(Int64, [UInt8])] = []
        var slots = 0
        while try rows.step() {
            slots += 1
            let change = rows.blob(1)
            if !Self.isBlank(change) { entries.append((rows.int64(0), change)) }
        }
        rows.reset()
        if entries.isEmpty && slots == Self.journalFoldRows { return }
        try db.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            for (seq, bytes) in entries {
                for change in try JournalEntry.decode(bytes, seq: seq, path: path) { try write(change, folding: true) }
            }
            try blankJournal()
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Commits the open journaled transaction as one journal row (nothing when it changed
    /// nothing). Synced as every commit is (`synchronous = FULL`).
    func commitJournaled() throws(StoreError) {
        if journal.pending.isEmpty { return }
        let entry = JournalEntry.encode(journal.pending, capacity: journal.pendingBytes)
        // The next slot: `begin()` folds before the slots run out.
        let slot = journal.nextSlot
        let result: Result<Bool, StoreError> = entry.withUnsafeBytes { bytes in
            defer { insertJournal.reset() }
            insertJournal.bind(1, borrowing: bytes)
            insertJournal.bind(2, slot)
            do throws(StoreError) { return .success(try insertJournal.step()) } catch { return .failure(error) }
        }
        _ = try result.get()
        if db.changes != 1 { throw StoreError(path: path, message: "the journal has no slot \(slot)") }
        journal.commitPending(slot: slot, bytes: entry.count)
    }

    /// For tests: the file closed as a crash would leave it, the journal not folded.
    func closeWithoutFolding() {
        journal.folded()
        close()
    }
}
