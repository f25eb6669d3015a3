/// The journal (issue 32, state file version 5): a transaction of the event path commits one
/// row, a slot of `journal (seq, change)` (below), holding its whole change (`JournalEntry`), instead of
/// writing the pages of four B-trees (`answered`, its index `answered_event`, `firing`, `ledger`).
/// The changes stay in memory (`Journal`: the overlay, which `lastFiring`, `lastFirings`,
/// `answer(event:)` and the retention sweep of `firing` read first) until they are folded into
/// the tables (`fold()`): every `journalIdleFoldRows` rows once the replies are sent
/// (`repliesSent()`), and at the latest at `journalFoldRows` rows (or `journalFoldBytes`) when the
/// next transaction begins. A fold applies the changes and blanks the slots they came from in one
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
/// commit overwrites it: the commits after a fold fill slots 1, 2, ... in order, and a fold blanks
/// them again. Rows appended and deleted would allocate a page every few commits from the free
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

    var mode = Mode.idle
    /// The open transaction's changes while it is journaled, and about their encoded size.
    var pending: [StateChange] = []
    var pendingBytes = 0
    /// Committed changes not yet folded into the tables, in order; the journal's rows they came
    /// from (the last one's `seq`), and their bytes.
    var committed: [StateChange] = []
    var rows = 0
    var bytes = 0
    var lastSeq: Int64 = 0
    /// The overlay: the newest suppression time and the answers of `committed` and `pending`.
    var firings: [FiringKey: Int64] = [:]
    var answers: [AnswerKey: [UInt8]] = [:]
    /// The row number the next answer takes (the table's largest and the journal's, plus one).
    var nextAnswerRow: Int64 = 1
    /// Folds so far, and the pages they wrote to the WAL.
    var folds = 0
    var foldPages = 0
    /// Pages the last commit wrote to the WAL (a journaled commit: its row's pages).
    var lastCommitPages = 0

    /// Whether the overlay holds what the tables do not: not inside a transaction gone direct,
    /// whose tables hold it all.
    var overlayValid: Bool { mode != .direct }

    mutating func overlay(_ change: StateChange) {
        switch change {
        case .firing(let app, let device, let campaign, let time):
            firings[FiringKey(app: app, device: device, campaign: campaign)] = time
        case .answer(_, let app, let event, let stored, _):
            answers[AnswerKey(app: app, event: event)] = stored
        case .ledgerDeleted, .ledgerSaved:
            break
        }
    }

    /// After a rollback: the overlay of the committed changes alone.
    mutating func rebuildOverlay() {
        firings.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
        for change in committed { overlay(change) }
    }

    /// After a fold: the tables hold everything.
    mutating func folded() {
        committed.removeAll(keepingCapacity: true)
        rows = 0
        bytes = 0
        firings.removeAll(keepingCapacity: true)
        answers.removeAll(keepingCapacity: true)
    }
}

extension SQLiteStateStore {
    /// The journal's table (version 5).
    static let journalTable = "CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, change BLOB NOT NULL)"

    /// Journal rows past which the next `begin()` folds them first, whatever the load: the slots.
    static let journalFoldRows = 256
    /// A blank slot's size: three to a page of 4 KiB, about the size of one event's entry.
    static let journalSlotBytes = 1200
    /// Journal bytes past which the next `begin()` folds first: 1 MiB.
    static let journalFoldBytes = 1 << 20
    /// Journal rows from which a fold runs once the replies are sent.
    static let journalIdleFoldRows = 64
    /// A transaction whose changes pass this many bytes goes direct: a large group commit writes
    /// its pages once, to the tables.
    static let journalEntryLimit = 64 << 10

    /// Unfolded journal rows (tests, metrics).
    package var journalRows: Int { journal.rows }
    /// Folds so far.
    package var journalFolds: Int { journal.folds }
    /// Pages the last commit wrote to the WAL.
    package var lastCommitPages: Int { journal.lastCommitPages }

    /// A change of the open transaction: into the journal while it is journaled (and the
    /// overlay), to the tables otherwise. Noted on failure, as the `SuppressionStore` calls are.
    func record(_ change: StateChange) {
        if journal.mode == .journaling {
            // An id answered twice fails as the table's unique key would (the pipeline looks an
            // id up before it answers it, so only a caller's error does this).
            if case .answer(_, let app, let event, _, _) = change, journal.answers[Journal.AnswerKey(app: app, event: event)] != nil {
                note(StoreError(path: path, message: "UNIQUE constraint failed: answered.app, answered.event (event \(event))"))
                return
            }
            journal.pending.append(change)
            journal.pendingBytes += change.size
            journal.overlay(change)
            if journal.pendingBytes > Self.journalEntryLimit { _ = writesTables() }
            return
        }
        do { try write(change) } catch { note(error) }
    }

    /// Writes one change to its table.
    func write(_ change: StateChange) throws(StoreError) {
        switch change {
        case .firing(let app, let device, let campaign, let time):
            defer { upsertFiring.reset() }
            upsertFiring.bind(1, device)
            upsertFiring.bind(2, campaign)
            upsertFiring.bind(3, time)
            upsertFiring.bind(4, app)
            _ = try upsertFiring.step()
        case .answer(let row, let app, let event, let stored, let at):
            var id = event
            // Bound without copies: both stay valid until the statement is reset, in the closures.
            let result: Result<Bool, StoreError> = id.withUTF8 { utf8 in
                stored.withUnsafeBytes { bytes in
                    defer { insertAnswer.reset() }
                    insertAnswer.bind(1, borrowingText: utf8)
                    insertAnswer.bind(2, borrowing: bytes)
                    insertAnswer.bind(3, at)
                    insertAnswer.bind(4, app)
                    insertAnswer.bind(5, row)
                    do throws(StoreError) { return .success(try insertAnswer.step()) } catch { return .failure(error) }
                }
            }
            _ = try result.get()
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

    /// Turns the open journaled transaction direct: `BEGIN IMMEDIATE`, the committed journal
    /// folded into it (its slots blanked), the transaction's own changes written. Nothing when no
    /// transaction is open or it is direct already.
    func goDirect() throws(StoreError) {
        guard inTransaction, journal.mode == .journaling else { return }
        if let failure { throw failure }
        try db.execute("BEGIN IMMEDIATE")
        journal.mode = .direct
        do throws(StoreError) {
            try foldCommitted()
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

    /// The committed journal's changes written and its slots blanked, inside the open SQL
    /// transaction.
    private func foldCommitted() throws(StoreError) {
        if journal.committed.isEmpty { return }
        for change in journal.committed { try write(change) }
        defer { blankJournalThrough.reset() }
        blankJournalThrough.bind(1, journal.lastSeq)
        _ = try blankJournalThrough.step()
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

    /// Folds the journal into the tables, in a transaction of its own, between two of the owner's.
    /// Its commit is not synced (`synchronous = NORMAL`): until a later commit syncs the WAL (which
    /// holds the fold's frames before its own), a crash loses the fold and keeps the journal's rows,
    /// which are folded again at open.
    package func fold() throws(StoreError) {
        guard !inTransaction, !journal.committed.isEmpty else { return }
        if path != ":memory:" { try db.execute("PRAGMA synchronous = NORMAL") }
        defer { if path != ":memory:" { try? db.execute("PRAGMA synchronous = FULL") } }
        try db.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try foldCommitted()
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
        journal.folded()
        journal.folds += 1
        let pages = takePagesWritten()
        journal.foldPages += pages
    }

    /// Once the replies are sent: a fold when the journal holds `journalIdleFoldRows` rows. A
    /// failure leaves the journal as it is (the next `begin()` past the bound tries again, and
    /// reports it).
    package func foldWhenIdle() {
        guard !inTransaction, journal.rows >= Self.journalIdleFoldRows else { return }
        try? fold()
    }

    /// At open: the entries a crash left in the journal applied to the tables, in order, and blanked,
    /// in one transaction (so a crash during it leaves them to the next open). An entry that does
    /// not decode stops the open with an error naming it.
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
                for change in try JournalEntry.decode(bytes, seq: seq, path: path) { try write(change) }
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
        let slot = Int64(journal.rows + 1)
        let result: Result<Bool, StoreError> = entry.withUnsafeBytes { bytes in
            defer { insertJournal.reset() }
            insertJournal.bind(1, borrowing: bytes)
            insertJournal.bind(2, slot)
            do throws(StoreError) { return .success(try insertJournal.step()) } catch { return .failure(error) }
        }
        _ = try result.get()
        if db.changes != 1 { throw StoreError(path: path, message: "the journal has no slot \(slot)") }
        journal.lastSeq = slot
        journal.rows += 1
        journal.bytes += entry.count
        journal.committed.append(contentsOf: journal.pending)
        journal.pending.removeAll(keepingCapacity: true)
        journal.pendingBytes = 0
    }

    /// For tests: the file closed as a crash would leave it, the journal not folded.
    func closeWithoutFolding() {
        journal.folded()
        close()
    }
}
