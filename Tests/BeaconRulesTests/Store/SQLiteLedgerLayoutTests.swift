@testable import BeaconRules
@testable import BeaconRulesStore
import Foundation
import Testing

/// The ledger's rows in the state file (version 2): numbered in the order saved, a changed line
/// a new row and its old one deleted; a version 1 file (rows keyed by line key) upgraded at open.
@Suite("SQLite ledger layout")
struct SQLiteLedgerLayoutTests {
    let directory = Paths.temporaryDirectory()

    /// An unhandled count's line: its key is `3:["c1","de","TYPE"]`.
    func count(_ key: String, _ n: Int) -> DeliveryLedger.Line {
        let type = key.dropFirst(#"3:["c1","de",""#.count).dropLast(2)
        return DeliveryLedger.Line(key: key, json: Array(#"{"unhandled":"\#(type)","campaign":"c1","eid":"c1","language":"de","count":\#(n)}"#.utf8), delivery: nil)
    }

    func rows(_ store: SQLiteStateStore) throws -> [String] {
        // The journal folded first (issue 32): the rows are the table's.
        try store.settleJournal()
        let statement = try store.db.prepare("SELECT key FROM ledger ORDER BY seq")
        defer { statement.finalize() }
        var keys: [String] = []
        while try statement.step() { keys.append(statement.text(0)) }
        return keys
    }

    @Test func aChangedLineGoesToTheEndAndItsOldRowIsGoneAfterRollbacksAndReopeningToo() throws {
        let path = directory + "/state.db"
        let a = #"3:["c1","de","a"]"#, b = #"3:["c1","de","b"]"#, c = #"3:["c1","de","c"]"#
        let store = try SQLiteStateStore(path: path)
        try store.begin()
        try store.saveLedger([count(a, 1), count(b, 1), count(c, 1)])
        try store.commit()
        try store.begin()
        try store.saveLedger([count(a, 2)])
        try store.commit()
        #expect(try rows(store) == [b, c, a])
        // Rolled back: the numbers the store kept for it are not used after.
        try store.begin()
        try store.saveLedger([count(b, 9), count(c, 9)])
        store.rollback()
        try store.begin()
        try store.saveLedger([count(c, 3), DeliveryLedger.Line(key: b, json: [], delivery: nil)])
        try store.commit()
        #expect(try rows(store) == [a, c])
        store.close()

        // Reopened without loading the ledger first, then loaded.
        let reopened = try SQLiteStateStore(path: path)
        try reopened.begin()
        try reopened.saveLedger([count(a, 4)])
        try reopened.commit()
        #expect(try rows(reopened) == [c, a])
        #expect(try ResponseTrace.counts(reopened.loadLedger()) == [a: 4, c: 3])
        reopened.close()
    }

    /// Half of each device's lines (events and responses to them), then the rest.
    func halves() throws -> (first: String, second: String) {
        let devices = MuseumTrace.devices(6, events: 24, prefix: "lay")
        let trace = ResponseTrace(devices: devices, delivered: try ResponseTrace.notifications(devices: devices, directory: directory))
        func text(_ perDevice: [[ResponseTrace.Line]]) -> String {
            MuseumTrace.interleave(perDevice.map { $0.map(\.text) }).map { $0 + "\n" }.joined()
        }
        return (text(trace.perDevice.map { Array($0.prefix($0.count / 2)) }), text(trace.perDevice.map { Array($0.dropFirst($0.count / 2)) }))
    }

    @Test func aVersionOneFileIsUpgradedAtOpenWithTheSameLedgerAndAnswersResponsesAsBefore() throws {
        let (first, second) = try halves()
        let current = directory + "/current.db", old = directory + "/old.db"
        for path in [current, old] {
            let result = try CommandRunner.run(["replay", "--state", path], stdin: first)
            #expect(result.status == 0, "\(result.stderr)")
        }
        try Self.makeVersionOne(old)
        let db = try SQLiteConnection(path: old)
        // Deliveries, some clicked, and what else the responses saved.
        #expect(try db.integer("SELECT count(*) FROM ledger WHERE key LIKE '0:%'") > 10)
        #expect(try db.integer("SELECT count(*) FROM ledger WHERE key LIKE '0:%' AND CAST(line AS TEXT) LIKE '%\"clicks\":[\"%'") > 0)
        #expect(try db.integer("SELECT count(*) FROM ledger WHERE key NOT LIKE '0:%'") > 0)
        db.close()

        let upgraded = try SQLiteStateStore(path: old), reference = try SQLiteStateStore(path: current)
        #expect(try upgraded.db.integer("PRAGMA user_version") == 5)
        #expect(try upgraded.loadLedger().allLines() == reference.loadLedger().allLines())
        #expect(try upgraded.export().ledger.map(\.key) == reference.export().ledger.map(\.key))
        upgraded.close()
        reference.close()

        let fromOld = try CommandRunner.run(["replay", "--state", old], stdin: second)
        let fromCurrent = try CommandRunner.run(["replay", "--state", current], stdin: second)
        #expect(fromOld.status == 0, "\(fromOld.stderr)")
        #expect(fromOld.stdout == fromCurrent.stdout)
        #expect(fromOld.stderr == fromCurrent.stderr)
        let after = try SQLiteStateStore(path: old), afterReference = try SQLiteStateStore(path: current)
        defer {
            after.close()
            afterReference.close()
        }
        #expect(try after.loadLedger().allLines() == afterReference.loadLedger().allLines())
    }

    /// Lays a state file of one app (the app `default`, number 0) out as version 2 did, before
    /// apps: no `app` table, no app in any row, the presence snapshot the one row 1; each table
    /// created with version 2's own statement.
    static func makeVersionTwo(_ path: String) throws {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        #expect(try db.integer("SELECT count(*) FROM app WHERE num <> 0") == 0, "version 2 held one app's state")
        try db.execute("""
            BEGIN;
            CREATE TABLE firing_v2 (
                device TEXT NOT NULL, campaign TEXT NOT NULL, time INTEGER NOT NULL,
                PRIMARY KEY (device, campaign)) WITHOUT ROWID;
            INSERT INTO firing_v2 SELECT device, campaign, time FROM firing;
            DROP TABLE firing;
            ALTER TABLE firing_v2 RENAME TO firing;
            CREATE TABLE answered_v2 (event TEXT PRIMARY KEY NOT NULL, records BLOB NOT NULL, at INTEGER NOT NULL DEFAULT 0);
            INSERT INTO answered_v2 (rowid, event, records, at) SELECT rowid, event, records, at FROM answered;
            DROP TABLE answered;
            ALTER TABLE answered_v2 RENAME TO answered;
            CREATE TABLE ledger_v2 (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, line BLOB NOT NULL);
            INSERT INTO ledger_v2 SELECT seq, key, line FROM ledger;
            DROP TABLE ledger;
            ALTER TABLE ledger_v2 RENAME TO ledger;
            CREATE TABLE presence_v2 (id INTEGER PRIMARY KEY CHECK (id = 1), snapshot BLOB NOT NULL);
            INSERT INTO presence_v2 SELECT 1, snapshot FROM presence;
            DROP TABLE presence;
            ALTER TABLE presence_v2 RENAME TO presence;
            CREATE TABLE outbox_v2 (seq INTEGER PRIMARY KEY AUTOINCREMENT, records BLOB NOT NULL, at INTEGER NOT NULL DEFAULT 0);
            INSERT INTO outbox_v2 SELECT seq, records, at FROM outbox;
            DROP TABLE outbox;
            ALTER TABLE outbox_v2 RENAME TO outbox;
            DROP TABLE app;
            PRAGMA user_version = 2;
            COMMIT;
            """)
    }

    /// Lays a state file out as version 1 did: version 2's layout, but ledger rows keyed by line
    /// key (no row number), no record tails (answers stored whole).
    static func makeVersionOne(_ path: String) throws {
        try makeVersionTwo(path)
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        let tails = try db.integer("SELECT count(*) FROM tail")
        precondition(tails == 0, "answers stored with tail numbers have no version 1 layout")
        try db.execute("""
            BEGIN;
            CREATE TABLE ledger_v1 (key TEXT PRIMARY KEY NOT NULL, line BLOB NOT NULL) WITHOUT ROWID;
            INSERT INTO ledger_v1 SELECT key, line FROM ledger;
            DROP TABLE ledger;
            ALTER TABLE ledger_v1 RENAME TO ledger;
            DROP TABLE tail;
            PRAGMA user_version = 1;
            COMMIT;
            """)
    }

    @Test func aFileOfALaterVersionIsRefusedNamingTheVersions() throws {
        let path = directory + "/later.db"
        try SQLiteStateStore(path: path).close()
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA user_version = 6")
        db.close()
        #expect {
            try SQLiteStateStore(path: path).close()
        } throws: { error in
            "\(error)".contains("state file version 6; this beaconrules reads versions 1 to 4 (upgraded when opened) and 5")
        }
    }
}
