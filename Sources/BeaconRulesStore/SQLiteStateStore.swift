package import BeaconRules

/// Durable engine state in one SQLite file: the suppression and once-only state per
/// (device, campaign), and a line pipeline's `AnswerLog`: the answered events with the records
/// each one produced, the delivery ledger, the presence snapshot and the outbox.
///
/// `serve` and `replay --state` share it. Changes are made inside a transaction that the owner
/// opens with `begin()` and makes durable with `commit()` (WAL, `synchronous=FULL`: a commit has
/// reached the disk when it returns), so many events can share one fsync (group commit).
///
/// Checkpoints (copying the WAL back into the file) run on a thread and connection of their own
/// (`WALCheckpointer`), never inside a commit while that thread keeps up. The thread copies the
/// bulk while the commits go on; the last few frames, those committed meanwhile, are copied by the
/// owner between two commits (`checkpointStep()`: after the replies are sent, or at the next
/// `begin()`), so the next transaction starts the WAL over (docs/performance.md). When the thread
/// falls far behind (`walLimitFrames`), the commit that finds the WAL that long empties it itself,
/// so the WAL is bounded either way.
///
/// Several apps keep their state in one file (`--apps FILE` with `--state`, docs/serve.md "Apps"):
/// every row names its app by number (the `app` table gives each id its number; the state of a
/// file written before apps is the app `default`'s, number 0). The store serves one app at a time,
/// `use(app:)`: its statements bind that number, so one connection, one lock and one transaction
/// hold every app's state. Answers, the outbox and record tails are forgotten by the wall clock
/// whatever their app (the retention of the process that has the file open).
///
/// Not `Sendable`: one owner makes every call. The file is locked while it is open (`flock` on
/// `<file>.lock`), so a second process cannot interleave its own changes.
package final class SQLiteStateStore: SuppressionStore {
    /// The file, or `:memory:`.
    package let path: String
    let db: SQLiteConnection
    /// Nil for `:memory:`, which nobody else can open.
    private let lock: StateFileLock?
    /// Nil for `:memory:`, which has no WAL.
    let checkpointer: WALCheckpointer?
    /// Without a checkpointer thread (`CheckpointMode.betweenCommits`): the owner copies the
    /// WAL back itself past this many frames; nil otherwise.
    let ownerCheckpointFrames: Int?
    /// Past this many frames in the WAL a commit checkpoints it itself (TRUNCATE): the bound on
    /// the WAL (4 KiB a frame) when the checkpointer cannot keep up.
    let walLimitFrames: Int
    /// Checkpoints run by commits because the WAL passed `walLimitFrames`.
    package private(set) var inlineCheckpoints = 0
    /// Checkpoints the owner ran between commits to copy back the last frames (`checkpointStep`).
    package private(set) var checkpointSteps = 0
    /// Set by a commit that left the last frames to the owner's `checkpointStep()`.
    private(set) var checkpointStepDue = false
    /// Times the WAL was seen to start over, and its length after the last commit: a checkpoint
    /// counted before the last restart says nothing about the WAL now.
    private var walCycle = 0
    private var lastWALFrames = 0
    /// Those of them that failed (a busy file aside), and the last such failure.
    private var inlineFailures = 0
    private var lastInlineFailure: StoreError?
    /// Pages the commits have written to the WAL, and the connection's count at the last commit.
    private var pagesWritten = 0
    private var pagesWrittenCount = 0
    private let pageSize: Int
    private let selectFiring: SQLiteStatement
    private let selectDeviceFirings: SQLiteStatement
    let upsertFiring: SQLiteStatement
    private let selectAnswer: SQLiteStatement
    let insertAnswer: SQLiteStatement
    /// A fold's answer (`write(_:folding:)`): added, or, when the table holds its id already
    /// (`replaceAnswer`), moved to the journal's row with the journal's records.
    let foldAnswer: SQLiteStatement
    let replaceAnswer: SQLiteStatement
    let insertJournal: SQLiteStatement
    let blankJournalSlots: SQLiteStatement
    /// The journal's committed changes not yet folded into the tables, and the open transaction's
    /// while it is journaled (`SQLiteStateStore+Journal`).
    var journal = Journal()
    let oldestAnswers: SQLiteStatement
    let forgetAnswersThrough: SQLiteStatement
    let oldestOutbox: SQLiteStatement
    let forgetOutboxThrough: SQLiteStatement
    let sweepFirings: SQLiteStatement
    let deleteFiring: SQLiteStatement
    let deleteLedgerLine: SQLiteStatement
    let saveLedgerLine: SQLiteStatement
    let freePages: SQLiteStatement
    /// A tail's last naming answer, written when it lags (`saveNamedTails`).
    let updateTailLast: SQLiteStatement
    let allPages: SQLiteStatement
    /// The wall clock (ms) answers and outbox entries are stamped with (`setClock`).
    var clock: Int64 = 0
    /// The row number of each saved ledger line by its key, and the next number: known once the
    /// ledger was loaded or first saved, until a rollback (`SQLiteStateStore+Ledger`). As many
    /// entries as the ledger has lines.
    var ledgerRows: [String: Int64] = [:]
    var nextLedgerRow: Int64 = 1
    var ledgerRowsKnown = false
    /// Record tails stored once (`SQLiteStateStore+RecordTails`).
    var tails = RecordTails()
    /// Where the sweep of `firing` goes on: the last (device, campaign) it looked at.
    var firingSweep = ("", "")
    /// The app whose state the store reads and writes (`use(app:)`): its number in the file.
    package internal(set) var app: Int64 = 0
    /// What the store keeps in memory for the apps it does not serve now, by number.
    var parked: [Int64: AppScope] = [:]
    private(set) var inTransaction = false
    /// The first failure inside the open transaction. The `SuppressionStore` calls cannot throw,
    /// so a failure is kept here and `commit()` reports it (after rolling everything back). After
    /// one, no more SQL runs until then: SQLite may already have rolled the transaction back on its
    /// own (a full disk does), and later writes would then each commit by themselves.
    private(set) var failure: StoreError?
    /// Answered events in the file: counted once at open, then kept up to date by `remember`,
    /// `commit` and `rollback` (the metrics read it once a second; a count(*) would scan the table).
    package internal(set) var heldAnswers = 0
    /// Answers remembered in the open transaction, added to `heldAnswers` when it commits.
    var pendingAnswers = 0

    /// 'BRST' in the SQLite header: tells a state file from any other SQLite database.
    static let applicationID: Int64 = 0x4252_5354
    /// 2: the ledger's rows numbered in the order saved. 3: every row names its app (files of
    /// versions 1 and 2 are upgraded at open, their state the app `default`'s). 4: a tail's
    /// `last` may lag the last answer naming it by less than `RecordTails.lastSlack` rows (a file
    /// of version 3, whose `last` is exact, is version 4 as it is); the version keeps a binary
    /// that reads `last` as exact (and would forget tails still named) from opening the file.
    /// 5: the journal (`SQLiteStateStore+Journal`): a file of version 4 gets the table; an older
    /// binary would not replay its rows.
    static let schemaVersion: Int64 = 5

    /// SQLite's page cache for the owner's connection, in KiB: 64 MiB.
    static let cacheKiB = 65_536

    /// Frames in the WAL (4 KiB each) before the checkpointer is asked to copy them back.
    package static let walCheckpointFrames = 1024
    /// Frames past which a commit checkpoints itself: 64 MiB of WAL.
    package static let walLimitFrames = 16_384
    /// Frames left to copy (those written while the checkpointer copied, or the last commit's if
    /// more) that the owner copies itself between two commits: 1 MiB of WAL at most, about a
    /// millisecond on this machine.
    package static let walStepFrames = 256

    /// Opens (or creates) the state file at `path`; `checkpoints` says who copies its WAL back.
    package convenience init(path: String, checkpoints: CheckpointMode = .onThread) throws(StoreError) {
        let frames = switch checkpoints {
        case .onThread: Self.walCheckpointFrames
        case .inCommits: 0
        case .betweenCommits: Self.walStepFrames
        }
        try self.init(path: path, walCheckpointFrames: frames, walLimitFrames: Self.walLimitFrames, checkpoints: checkpoints)
    }

    /// Opens the state file with other WAL thresholds (tests); `walCheckpointFrames` 0 leaves the
    /// checkpoints to SQLite, inside the commits, whatever `checkpoints` says. With
    /// `.betweenCommits` the owner copies the WAL back every `walCheckpointFrames`.
    convenience init(path: String, walCheckpointFrames: Int, walLimitFrames: Int, checkpoints: CheckpointMode = .onThread) throws(StoreError) {
        let lock = try StateFileLock(statePath: path)
        try self.init(
            connection: SQLiteConnection(path: path), lock: lock, walCheckpointFrames: walCheckpointFrames,
            walLimitFrames: walLimitFrames, checkpoints: checkpoints)
    }

    /// A state that lives only as long as this object (the server without `--state`).
    package static func inMemory() throws(StoreError) -> SQLiteStateStore {
        try SQLiteStateStore(connection: SQLiteConnection(path: ":memory:"), lock: nil, walCheckpointFrames: 0, walLimitFrames: 0)
    }

    private init(connection: SQLiteConnection, lock: StateFileLock?, walCheckpointFrames: Int, walLimitFrames: Int, checkpoints: CheckpointMode = .onThread) throws(StoreError) {
        db = connection
        path = connection.path
        self.lock = lock
        self.walLimitFrames = walLimitFrames
        // Normal locking (WAL with its shared-memory index), so that the checkpointer's connection
        // can share the file; `lock` keeps other processes out. A checkpoint that must wait for
        // the writer (the fallback, TRUNCATE) waits this long.
        try db.execute("PRAGMA busy_timeout = 10000")
        // Space freed by forgotten state goes back a few pages per commit (`reclaimSpace`). Takes
        // effect on a new file; one made before is switched by a VACUUM, once (`migrate`).
        try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        try Self.migrate(db)
        if try db.integer("PRAGMA auto_vacuum") != 2 {
            try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute("VACUUM")
        }
        try db.execute("PRAGMA journal_mode = WAL")
        // FULL: the WAL is synced at every commit, so an answered event survives power loss too.
        try db.execute("PRAGMA synchronous = FULL")
        // Room for the pages a large transaction touches: with SQLite's default (2 MiB), a batch
        // of a few thousand events spilled dirty pages to the WAL before its commit and read
        // pages back from the file system, 2.2 reads of 4 KiB an event (docs/performance.md).
        try db.execute("PRAGMA cache_size = -\(Self.cacheKiB)")
        // The app is the last parameter of each statement that names one (bound at every use: a
        // reset clears the bindings).
        selectFiring = try db.prepare("SELECT time FROM firing WHERE app = ?3 AND device = ?1 AND campaign = ?2")
        selectDeviceFirings = try db.prepare("SELECT campaign, time FROM firing WHERE app = ?2 AND device = ?1")
        upsertFiring = try db.prepare(
            "INSERT INTO firing (app, device, campaign, time) VALUES (?4, ?1, ?2, ?3) ON CONFLICT (app, device, campaign) DO UPDATE SET time = excluded.time")
        selectAnswer = try db.prepare("SELECT records FROM answered WHERE app = ?2 AND event = ?1")
        // The row number is given (`Journal.nextAnswerRow`): a journaled answer has one before it
        // is in the table.
        insertAnswer = try db.prepare("INSERT INTO answered (rowid, app, event, records, at) VALUES (?5, ?4, ?1, ?2, ?3)")
        foldAnswer = try db.prepare(
            "INSERT INTO answered (rowid, app, event, records, at) VALUES (?5, ?4, ?1, ?2, ?3) ON CONFLICT (app, event) DO NOTHING")
        replaceAnswer = try db.prepare("UPDATE answered SET rowid = ?5, records = ?2, at = ?3 WHERE app = ?4 AND event = ?1")
        // A commit overwrites the next blank slot (`Journal`): the leaf page it is on, nothing else.
        insertJournal = try db.prepare("UPDATE journal SET change = ?1 WHERE seq = ?2")
        // A fold blanks the slots of the rows it folded (consecutive, the oldest): only those.
        blankJournalSlots = try db.prepare("UPDATE journal SET change = zeroblob(\(Self.journalSlotBytes)) WHERE seq BETWEEN ?1 AND ?2")
        // Rows are numbered in the order given (rowid, seq): the oldest are the first few.
        oldestAnswers = try db.prepare("SELECT rowid, at FROM answered ORDER BY rowid LIMIT ?1")
        forgetAnswersThrough = try db.prepare("DELETE FROM answered WHERE rowid <= ?1")
        oldestOutbox = try db.prepare("SELECT seq, at FROM outbox ORDER BY seq LIMIT ?1")
        forgetOutboxThrough = try db.prepare("DELETE FROM outbox WHERE seq <= ?1")
        // `app = ?` and the row value on the rest of the key, so that the search starts at the
        // cursor: `(app, device, campaign) > (...) AND app = ?` searched by `app` alone and read
        // every row before the cursor on each step (twice the CPU per event at 2,000 events/s).
        sweepFirings = try db.prepare("""
            SELECT device, campaign, time FROM firing WHERE app = ?4 AND (device, campaign) > (?1, ?2)
            ORDER BY app, device, campaign LIMIT ?3
            """)
        deleteFiring = try db.prepare("DELETE FROM firing WHERE app = ?3 AND device = ?1 AND campaign = ?2")
        deleteLedgerLine = try db.prepare("DELETE FROM ledger WHERE seq = ?1")
        saveLedgerLine = try db.prepare("INSERT INTO ledger (seq, key, line, app) VALUES (?1, ?2, ?3, ?4)")
        freePages = try db.prepare("PRAGMA freelist_count")
        updateTailLast = try db.prepare("UPDATE tail SET last = max(last, ?2) WHERE id = ?1")
        allPages = try db.prepare("PRAGMA page_count")
        app = try Self.number(ofApp: StateApps.defaultID, in: db, create: true) ?? 0
        pageSize = Int(try db.integer("PRAGMA page_size"))
        pagesWrittenCount = db.pagesWritten
        if lock != nil && walCheckpointFrames > 0 && checkpoints == .betweenCommits {
            try db.watchWAL()
            checkpointer = nil
            ownerCheckpointFrames = walCheckpointFrames
        } else if lock != nil && walCheckpointFrames > 0 {
            try db.watchWAL()
            checkpointer = WALCheckpointer(path: path, threshold: walCheckpointFrames)
            ownerCheckpointFrames = nil
        } else {
            checkpointer = nil
            ownerCheckpointFrames = nil
        }
        // A crash may have left journal rows: folded into the tables before anything reads them.
        try replayJournal()
        heldAnswers = Int(try db.integer("SELECT count(*) FROM answered"))
        journal.nextAnswerRow = try db.integer("SELECT coalesce(max(rowid), 0) + 1 FROM answered")
        pagesWrittenCount = db.pagesWritten
    }

    deinit { close() }

    /// Checkpoints run by the checkpointer's thread so far.
    package var backgroundCheckpoints: Int { checkpointer?.state.checkpoints ?? 0 }

    /// What the WAL has seen so far: running totals for the metrics and the log.
    package struct WALActivity: Sendable {
        /// Checkpoints that copied the WAL back (the checkpointer's and the commits' own).
        package var checkpoints = 0
        /// Checkpoints that failed, and the last failure.
        package var failedCheckpoints = 0
        package var lastFailure: StoreError?
        /// Bytes the commits wrote to the WAL (whole pages; a page changed by many events of one
        /// commit is written once).
        package var bytesWritten = 0

        package init() {}
    }

    /// Nil for `:memory:`, which has no WAL.
    package var walActivity: WALActivity? {
        if path == ":memory:" { return nil }
        var activity = WALActivity()
        let background = checkpointer?.state ?? WALCheckpointer.Progress()
        activity.checkpoints = background.checkpoints + inlineCheckpoints + checkpointSteps
        activity.failedCheckpoints = background.failures + inlineFailures
        activity.lastFailure = lastInlineFailure ?? background.lastFailure
        activity.bytesWritten = pagesWritten * pageSize
        return activity
    }

    /// For tests: the checkpointer's checkpoints fail with `error` from now on (nil: they run).
    func failCheckpoints(with error: StoreError?) {
        checkpointer?.failCheckpoints(with: error)
    }

    /// What a commit does about the WAL it leaves.
    enum WALStep: Equatable {
        /// Short of the checkpointer's threshold: nothing.
        case none
        /// The checkpointer copies it back.
        case askCheckpointer
        /// The checkpointer copied all but a few frames: the owner copies those between commits.
        case finishHere
        /// Past the limit: the commit empties it itself.
        case empty
    }

    /// The step after a commit that left `frames` frames in the WAL, `added` of them its own, when
    /// the idle checkpointer's last checkpoint of this WAL found `copied` copied (nil: none, or
    /// it is busy).
    static func walStep(frames: Int, added: Int, copied: Int?, threshold: Int, limit: Int) -> WALStep {
        if frames >= limit { return .empty }
        if frames < threshold { return .none }
        if let copied, frames - copied <= max(walStepFrames, added) { return .finishHere }
        return .askCheckpointer
    }

    /// After a commit: asks the checkpointer to copy the WAL back, leaves the last frames to
    /// `checkpointStep()`, or, when the checkpointer has fallen `walLimitFrames` behind, empties
    /// the WAL here (waiting for a checkpoint under way).
    private func boundWAL() {
        guard checkpointer != nil || ownerCheckpointFrames != nil else { return }
        let frames = db.walFrames
        // Shorter than after the last commit: the WAL started over in this transaction.
        let restarted = frames < lastWALFrames
        if restarted { walCycle += 1 }
        let added = restarted ? frames : frames - lastWALFrames
        lastWALFrames = frames
        // Without a thread, the owner copies everything itself: as if all but nothing were copied.
        let step = Self.walStep(
            frames: frames, added: added, copied: checkpointer.map { $0.copiedWhenIdle(cycle: walCycle) } ?? frames,
            threshold: checkpointer?.threshold ?? ownerCheckpointFrames ?? 0, limit: walLimitFrames)
        switch step {
        case .none:
            break
        case .askCheckpointer:
            checkpointer?.walGrew(frames: frames, cycle: walCycle)
        case .finishHere:
            checkpointStepDue = true
        case .empty:
            // A failure leaves the WAL as it is; the next commit tries again.
            do throws(StoreError) {
                try db.checkpoint(truncate: true)
                inlineCheckpoints += 1
                walCycle += 1
                lastWALFrames = 0
            } catch where !WALCheckpointer.isBusy(error) {
                inlineFailures += 1
                lastInlineFailure = error
            } catch {}
        }
    }

    /// Copies back the WAL's last frames when a commit left them to the owner (the checkpointer
    /// copied the rest), so that the next transaction starts the WAL over. Between two
    /// transactions: `serve` calls it once the replies of a commit are sent, and `begin()` if
    /// nobody did. One PASSIVE checkpoint of at most a few hundred frames; a failure is counted
    /// as the commits' own checkpoints' are, and the checkpointer is asked again later.
    package func checkpointStep() {
        guard checkpointStepDue, !inTransaction else { return }
        checkpointStepDue = false
        do throws(StoreError) {
            try db.checkpoint(truncate: false)
            checkpointSteps += 1
        } catch where !WALCheckpointer.isBusy(error) {
            inlineFailures += 1
            lastInlineFailure = error
        } catch {}
    }

    /// Checks the file is a state file of a version this build reads, creating the schema when new
    /// and upgrading one of an earlier version.
    private static func migrate(_ db: SQLiteConnection) throws(StoreError) {
        // The first read tells a non-database file at once.
        try db.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let application = try db.integer("PRAGMA application_id")
            let version = try db.integer("PRAGMA user_version")
            let tables = try db.integer("SELECT count(*) FROM sqlite_master")
            if application == 0 && tables == 0 {
                try db.execute("""
                    \(appsSchema);
                    \(journalTable);
                    \(journalSlots)
                    PRAGMA application_id = \(applicationID);
                    PRAGMA user_version = \(schemaVersion);
                    """)
            } else if application != applicationID {
                throw StoreError(path: db.path, message: "an SQLite database, but not a beaconrules state file; give --state a new file name")
            } else if version > schemaVersion || version < 1 {
                throw StoreError(path: db.path, message: "state file version \(version); this beaconrules reads versions 1 to 4 (upgraded when opened) and \(schemaVersion)")
            } else if version < schemaVersion {
                // Version 3 to 4 changes no table: only what `tail.last` promises; 5 adds the journal.
                if version < 3 { try upgradeOneApp(db) }
                try db.execute(journalTable)
                try db.execute(journalSlots)
                try db.execute("PRAGMA user_version = \(schemaVersion)")
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// A file of version 1 or 2 (one app's state): the tables added since, then every row the
    /// app `default`'s (`upgradeToApps`).
    private static func upgradeOneApp(_ db: SQLiteConnection) throws(StoreError) {
        // The presence layer's tables came later; they are added to files of the same version.
        try db.execute("""
            CREATE TABLE IF NOT EXISTS presence (id INTEGER PRIMARY KEY CHECK (id = 1), snapshot BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, records BLOB NOT NULL, at INTEGER NOT NULL DEFAULT 0);
            """)
        // When answers and outbox entries were given came with retention: files from before
        // get the column, their rows time 0 (forgotten at the first step).
        for table in ["answered", "outbox"] {
            let hasTime = try db.integer("SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = 'at'") > 0
            if !hasTime { try db.execute("ALTER TABLE \(table) ADD COLUMN at INTEGER NOT NULL DEFAULT 0") }
        }
        try upgradeLedger(db)
        try db.execute(tailTable)
        try upgradeToApps(db)
    }

    /// Finalizes the statements and closes the file (also done on deinit).
    package func close() {
        if inTransaction { rollback() }
        // What a fold fails to write stays in the journal, replayed at the next open.
        try? fold()
        journal.folded()
        for statement in [insertJournal, blankJournalSlots, selectFiring, selectDeviceFirings, upsertFiring, selectAnswer, insertAnswer, foldAnswer, replaceAnswer, oldestAnswers, forgetAnswersThrough, oldestOutbox, forgetOutboxThrough, sweepFirings, deleteFiring, deleteLedgerLine, saveLedgerLine, freePages, updateTailLast, allPages] {
            statement.finalize()
        }
        // The checkpointer's connection first: the last one to close copies the WAL back.
        checkpointer?.stop()
        db.close()
        lock?.release()
    }

    // MARK: - Transactions

    /// Starts a transaction; every change until `commit()` becomes durable together, or not at all.
    package func begin() throws(StoreError) {
        precondition(!inTransaction, "begin() inside an open transaction")
        checkpointStep()
        // No slot left, or the bytes past their bound: everything folded first, on this
        // transaction's way (the steps between transactions keep this rare).
        if journal.nextSlot > Int64(Self.journalFoldRows) || journal.bytes >= Self.journalFoldBytes { try fold() }
        // Journaled: no SQL transaction until one is needed (`goDirect()`).
        inTransaction = true
        journal.mode = .journaling
        failure = nil
        pendingAnswers = 0
    }

    /// Makes every change since `begin()` durable. On any failure in the transaction, nothing of
    /// it is kept and the error says why.
    package func commit() throws(StoreError) {
        precondition(inTransaction, "commit() without begin()")
        if let failure {
            rollback()
            throw failure
        }
        do throws(StoreError) {
            // A tail's `last` due is written to its table: the transaction goes direct.
            if journal.mode == .journaling && tailsDue { try goDirect() }
            if journal.mode == .journaling {
                tails.named.removeAll(keepingCapacity: true)
                try commitJournaled()
            } else {
                try saveNamedTails()
                try db.execute("COMMIT")
                // The journal was folded inside it.
                journal.folded()
            }
        } catch {
            rollback()
            throw error
        }
        inTransaction = false
        journal.mode = .idle
        heldAnswers += pendingAnswers
        pendingAnswers = 0
        journal.lastCommitPages = takePagesWritten()
        boundWAL()
    }

    /// Pages the connection wrote to the WAL since the last call, added to the running total.
    func takePagesWritten() -> Int {
        // SQLite's count is a C int: the difference is taken modulo 2^32, as it wraps.
        let count = db.pagesWritten
        let pages = Int(UInt32(truncatingIfNeeded: count &- pagesWrittenCount))
        pagesWritten += pages
        pagesWrittenCount = count
        return pages
    }

    /// Forgets every change since `begin()`.
    package func rollback() {
        if journal.mode != .journaling { try? db.execute("ROLLBACK") }
        // The transaction's changes leave the overlay (a direct one's fold is undone too).
        if journal.mode == .direct || !journal.pending.isEmpty { journal.rebuildOverlay() }
        journal.pending.removeAll(keepingCapacity: true)
        journal.pendingBytes = 0
        journal.mode = .idle
        inTransaction = false
        failure = nil
        pendingAnswers = 0
        forgetLedgerRows()
        forgetParkedLedgerRows()
        tails.forgetNumbers()
    }

    func note(_ error: StoreError) {
        if failure == nil { failure = error }
    }

    // MARK: - Suppression state

    package func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        if failure != nil { return nil }
        if journal.overlayValid, !journal.firings.isEmpty,
           let newest = journal.firings[Journal.FiringKey(app: app, device: device, campaign: campaign.canonical)] {
            return Timestamp(milliseconds: newest.time)
        }
        defer { selectFiring.reset() }
        selectFiring.bind(1, device)
        selectFiring.bind(2, campaign.canonical)
        selectFiring.bind(3, app)
        do {
            guard try selectFiring.step() else { return nil }
            return Timestamp(milliseconds: selectFiring.int64(0))
        } catch {
            note(error)
            return nil
        }
    }

    /// One statement for all of an event's candidates: the device's rows (a few, side by side
    /// in the key order) are read once, where a `lastFiring` per candidate ran one each.
    package func lastFirings(_ device: String, _ campaigns: UnsafeBufferPointer<CampaignID>, into times: UnsafeMutablePointer<Int64?>) {
        for k in campaigns.indices { times[k] = nil }
        if failure != nil || campaigns.isEmpty { return }
        if campaigns.count == 1 {
            times[0] = lastFiring(device: device, campaign: campaigns[0])?.milliseconds
            return
        }
        defer { selectDeviceFirings.reset() }
        selectDeviceFirings.bind(1, device)
        selectDeviceFirings.bind(2, app)
        do {
            while try selectDeviceFirings.step() {
                for k in campaigns.indices where selectDeviceFirings.text(0, equals: campaigns[k].canonical) {
                    times[k] = selectDeviceFirings.int64(1)
                }
            }
        } catch {
            note(error)
            for k in campaigns.indices { times[k] = nil }
            return
        }
        if journal.overlayValid, !journal.firings.isEmpty {
            for k in campaigns.indices {
                if let newest = journal.firings[Journal.FiringKey(app: app, device: device, campaign: campaigns[k].canonical)] { times[k] = newest.time }
            }
        }
    }

    package func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        if failure != nil { return }
        record(.firing(app: app, device: device, campaign: campaign.canonical, time: time.milliseconds))
    }

    // MARK: - Answered events

    /// The records (JSON lines, each ending in `\n`) this event id was answered with, or nil when
    /// the id is new. Sees the open transaction's own answers too.
    package func answer(event id: String) -> [UInt8]? {
        if failure != nil { return nil }
        if journal.overlayValid, !journal.answers.isEmpty, let newest = journal.answers[Journal.AnswerKey(app: app, event: id)] {
            do { return try records(stored: newest.stored) } catch {
                note(error)
                return nil
            }
        }
        defer { selectAnswer.reset() }
        selectAnswer.bind(1, id)
        selectAnswer.bind(2, app)
        do {
            guard try selectAnswer.step() else { return nil }
            return try records(stored: selectAnswer.blob(0))
        } catch {
            note(error)
            return nil
        }
    }

    /// Logs the answer to a new event id: its records as JSON lines, each ending in `\n`.
    package func remember(event id: String, records: [UInt8]) {
        if failure != nil { return }
        insert(event: id, stored: records)
    }

    /// Adds an answer as stored (`records(stored:)` reads it back); its row number, or nil on a
    /// failure (noted).
    @discardableResult
    func insert(event id: String, stored: [UInt8]) -> Int64? {
        let row = journal.nextAnswerRow
        journal.nextAnswerRow += 1
        record(.answer(row: row, app: app, event: id, stored: stored, at: clock))
        if failure != nil { return nil }
        if inTransaction { pendingAnswers += 1 } else { heldAnswers += 1 }
        return row
    }

    /// Lets the file grow by at most `pages` more pages; past that every write fails as on a full
    /// disk. For tests of what happens when the state cannot be saved.
    func limitGrowth(toPages pages: Int) throws(StoreError) {
        let current = try db.integer("PRAGMA page_count")
        try db.execute("PRAGMA max_page_count = \(current + Int64(pages))")
    }

    // MARK: - Presence (serve)

    /// Keeps the presence layer's snapshot (one per file), in the open transaction.
    package func savePresence(_ snapshot: [UInt8]) {
        if failure != nil || !writesTables() { return }
        do {
            let statement = try db.prepare("INSERT OR REPLACE INTO presence (app, snapshot) VALUES (?2, ?1)")
            defer { statement.finalize() }
            snapshot.withUnsafeBytes { statement.bind(1, blob: $0) }
            statement.bind(2, app)
            _ = try statement.step()
        } catch { note(error) }
    }

    /// The presence snapshot kept by `savePresence`, if any.
    package func loadPresence() throws(StoreError) -> [UInt8]? {
        let statement = try db.prepare("SELECT snapshot FROM presence WHERE app = ?1")
        defer { statement.finalize() }
        statement.bind(1, app)
        return try statement.step() ? statement.blob(0) : nil
    }

    /// Appends records that fired on the clock (no request line to answer) to the outbox, in the
    /// open transaction.
    package func appendOutbox(_ records: [UInt8]) {
        if failure != nil || records.isEmpty || !writesTables() { return }
        do {
            let statement = try db.prepare("INSERT INTO outbox (records, at, app) VALUES (?1, ?2, ?3)")
            defer { statement.finalize() }
            records.withUnsafeBytes { statement.bind(1, blob: $0) }
            statement.bind(2, clock)
            statement.bind(3, app)
            _ = try statement.step()
        } catch { note(error) }
    }

    /// Outbox entries after sequence number `after`, oldest first: (seq, records as JSON lines).
    package func outbox(after: Int64, limit: Int = 1000) throws(StoreError) -> [(seq: Int64, records: [UInt8])] {
        let statement = try db.prepare("SELECT seq, records FROM outbox WHERE app = ?2 AND seq > ?1 ORDER BY seq LIMIT \(limit)")
        defer { statement.finalize() }
        statement.bind(1, after)
        statement.bind(2, app)
        var rows: [(seq: Int64, records: [UInt8])] = []
        while try statement.step() { rows.append((statement.int64(0), statement.blob(1))) }
        return rows
    }

    // MARK: - Inspection

    /// Every (device, campaign) firing of the app, sorted by device then campaign.
    package func firings() throws(StoreError) -> [FiringEntry] {
        try settleJournal()
        let statement = try db.prepare("SELECT device, campaign, time FROM firing WHERE app = ?1 ORDER BY device, campaign")
        defer { statement.finalize() }
        statement.bind(1, app)
        var entries: [FiringEntry] = []
        while try statement.step() {
            entries.append(FiringEntry(
                device: statement.text(0), campaign: CampaignID(canonical: statement.text(1)),
                time: Timestamp(milliseconds: statement.int64(2))))
        }
        return entries
    }

    /// Every answered event id of the app with its records, sorted by id.
    package func answers() throws(StoreError) -> [(event: String, records: [UInt8])] {
        try settleJournal()
        let statement = try db.prepare("SELECT event, records FROM answered WHERE app = ?1 ORDER BY event")
        defer { statement.finalize() }
        statement.bind(1, app)
        var rows: [(event: String, records: [UInt8])] = []
        while try statement.step() { rows.append((statement.text(0), try records(stored: statement.blob(1)))) }
        return rows
    }
}
