/// Several apps in one state file (schema version 3): the table `app` numbers the app ids, and
/// every other table's rows carry their app's number. The store reads and writes one app's rows
/// at a time (`use(app:)`); what it keeps in memory per app (the ledger's row numbers, where the
/// sweep of `firing` stands) is parked while another app is served.
extension SQLiteStateStore {
    /// What the store keeps in memory for one app.
    struct AppScope {
        var ledgerRows: [String: Int64] = [:]
        var ledgerRowsKnown = false
        var firingSweep = ("", "")
    }

    /// Every table as version 3 lays it out, for a new file: the app in every key. Answers keep
    /// their row number (retention forgets the oldest first, `tail.last` names one).
    static let appsSchema = """
        CREATE TABLE app (num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
        INSERT INTO app (num, id) VALUES (0, '\(StateApps.defaultID)');
        \(firingTable);
        \(answeredTable);
        CREATE UNIQUE INDEX answered_event ON answered (app, event);
        CREATE TABLE ledger (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, line BLOB NOT NULL, app INTEGER NOT NULL DEFAULT 0);
        \(presenceTable);
        CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, records BLOB NOT NULL, at INTEGER NOT NULL DEFAULT 0, app INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX outbox_app ON outbox (app);
        \(tailTable)
        """

    static let firingTable = """
        CREATE TABLE firing (
            app INTEGER NOT NULL, device TEXT NOT NULL, campaign TEXT NOT NULL, time INTEGER NOT NULL,
            PRIMARY KEY (app, device, campaign)) WITHOUT ROWID
        """
    static let answeredTable = "CREATE TABLE answered (app INTEGER NOT NULL, event TEXT NOT NULL, records BLOB NOT NULL, at INTEGER NOT NULL DEFAULT 0)"
    static let presenceTable = "CREATE TABLE presence (app INTEGER PRIMARY KEY, snapshot BLOB NOT NULL)"

    /// Version 2 to 3: a file of one app's state becomes the app `default`'s (number 0). The
    /// tables whose key changes are copied (answers with their row numbers); the ledger and the
    /// outbox, keyed by their sequence, get the column.
    static func upgradeToApps(_ db: SQLiteConnection) throws(StoreError) {
        try db.execute("""
            CREATE TABLE app (num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
            INSERT INTO app (num, id) VALUES (0, '\(StateApps.defaultID)');
            ALTER TABLE firing RENAME TO firing_one_app;
            \(firingTable);
            INSERT INTO firing (app, device, campaign, time) SELECT 0, device, campaign, time FROM firing_one_app;
            DROP TABLE firing_one_app;
            ALTER TABLE answered RENAME TO answered_one_app;
            \(answeredTable);
            INSERT INTO answered (rowid, app, event, records, at) SELECT rowid, 0, event, records, at FROM answered_one_app;
            DROP TABLE answered_one_app;
            CREATE UNIQUE INDEX answered_event ON answered (app, event);
            ALTER TABLE presence RENAME TO presence_one_app;
            \(presenceTable);
            INSERT INTO presence (app, snapshot) SELECT 0, snapshot FROM presence_one_app;
            DROP TABLE presence_one_app;
            ALTER TABLE ledger ADD COLUMN app INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE outbox ADD COLUMN app INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX outbox_app ON outbox (app);
            """)
    }

    /// The number of app `id` in the file; a new app is given the next number when `create`
    /// (nil otherwise).
    static func number(ofApp id: String, in db: SQLiteConnection, create: Bool) throws(StoreError) -> Int64? {
        let select = try db.prepare("SELECT num FROM app WHERE id = ?1")
        defer { select.finalize() }
        select.bind(1, id)
        if try select.step() { return select.int64(0) }
        guard create else { return nil }
        let insert = try db.prepare("INSERT INTO app (id) VALUES (?1)")
        defer { insert.finalize() }
        insert.bind(1, id)
        _ = try insert.step()
        return db.lastInsertRowid
    }

    /// The file's apps, by number.
    package func apps() throws(StoreError) -> [(number: Int64, id: String)] {
        let statement = try db.prepare("SELECT num, id FROM app ORDER BY num")
        defer { statement.finalize() }
        var apps: [(number: Int64, id: String)] = []
        while try statement.step() { apps.append((statement.int64(0), statement.text(1))) }
        return apps
    }

    /// The id of the app served now.
    package func appID() throws(StoreError) -> String {
        try apps().first { $0.number == app }?.id ?? StateApps.defaultID
    }

    /// The number of app `id`, given one when new (`create`), or nil.
    package func number(ofApp id: String, create: Bool) throws(StoreError) -> Int64? {
        try Self.number(ofApp: id, in: db, create: create)
    }

    /// Reads and writes app `id`'s state from now on, giving the app a number when it is new.
    package func use(appID id: String) throws(StoreError) {
        guard let number = try number(ofApp: id, create: true) else { return }
        use(app: number)
    }

    /// Reads and writes the state of the app with this number from now on. Cheap when it is the
    /// app served already (every call of a one-app process): nothing happens.
    package func use(app number: Int64) {
        guard number != app else { return }
        parked[app] = AppScope(ledgerRows: ledgerRows, ledgerRowsKnown: ledgerRowsKnown, firingSweep: firingSweep)
        let scope = parked.removeValue(forKey: number) ?? AppScope()
        ledgerRows = scope.ledgerRows
        ledgerRowsKnown = scope.ledgerRowsKnown
        firingSweep = scope.firingSweep
        app = number
    }

    /// After a rollback: the row numbers kept for the apps not served now may name rows that are
    /// gone too (the transaction may have saved lines of several apps).
    func forgetParkedLedgerRows() {
        for number in parked.keys {
            parked[number]?.ledgerRows = [:]
            parked[number]?.ledgerRowsKnown = false
        }
    }

    /// Whether the app served now holds any firing, answer, ledger line, presence or outbox entry.
    package func appHoldsState() throws(StoreError) -> Bool {
        try settleJournal()
        let statement = try db.prepare("""
            SELECT EXISTS (SELECT 1 FROM firing WHERE app = ?1) OR EXISTS (SELECT 1 FROM answered WHERE app = ?1)
            OR EXISTS (SELECT 1 FROM ledger WHERE app = ?1) OR EXISTS (SELECT 1 FROM presence WHERE app = ?1)
            OR EXISTS (SELECT 1 FROM outbox WHERE app = ?1)
            """)
        defer { statement.finalize() }
        statement.bind(1, app)
        return try statement.integer() != 0
    }

    /// Deletes every row of app `id` and the app itself, in one transaction; how many rows of
    /// each kind went. An app the file does not have is an error that names those it has.
    package func dropApp(_ id: String) throws(StoreError) -> AppRowCounts {
        guard let number = try number(ofApp: id, create: false) else {
            throw StateApps.unknown(id, in: path, holding: try apps().map(\.id))
        }
        try begin()
        do throws(StoreError) {
            try goDirect()
            var counts = AppRowCounts()
            func delete(_ table: String) throws(StoreError) -> Int {
                let statement = try db.prepare("DELETE FROM \(table) WHERE app = ?1")
                defer { statement.finalize() }
                statement.bind(1, number)
                _ = try statement.step()
                return db.changes
            }
            counts.firings = try delete("firing")
            counts.answers = try delete("answered")
            counts.ledgerLines = try delete("ledger")
            _ = try delete("presence")
            counts.outboxEntries = try delete("outbox")
            let app = try db.prepare("DELETE FROM app WHERE num = ?1")
            defer { app.finalize() }
            app.bind(1, number)
            _ = try app.step()
            pendingAnswers -= counts.answers
            try forgetUnnamedTails()
            try commit()
            parked[number] = nil
            if self.app == number { forgetLedgerRows() }
            return counts
        } catch {
            rollback()
            throw error
        }
    }
}
