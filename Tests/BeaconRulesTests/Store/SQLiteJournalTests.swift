@testable import BeaconRules
@testable import BeaconRulesStore
import Foundation
import Testing

/// The journal (issue 32, state file version 5): a commit of one event writes one slot holding its
/// whole change, at most 8 KiB of WAL; the rows are folded into the tables later, a few of the
/// oldest at a time (a step) or all at once, and replayed at open after a crash; a damaged row is
/// refused by name; the folded tables are those the direct writes make.
@Suite("SQLite: the journal")
struct SQLiteJournalTests {
    let directory = Paths.temporaryDirectory()
    /// The journal's slots a commit wrote and no fold blanked since.
    static let filled = "SELECT count(*) FROM journal WHERE substr(change, 1, 1) <> x'00'"
    typealias Storage = SQLiteOneEventCommitTests.Storage

    /// Event `n` as the event path changes the state: the device's suppression row, the answer
    /// (its records naming a tail), a delivery's ledger line, and every third event the line of
    /// an earlier delivery replaced (a response) and every fifth one removed.
    static func event(_ n: Int, _ store: SQLiteStateStore, _ storage: Storage, direct: Bool = false) throws {
        try store.begin()
        if direct { try store.goDirect() }
        store.setClock(Timestamp(milliseconds: Int64(1_000 + n)))
        let device = "device-\(n % 17)"
        store.recordFiring(device: device, campaign: CampaignID(eid: "c\(n % 5)"), at: Timestamp(milliseconds: Int64(n) * 1000))
        if store.answer(event: "ev-\(n)") == nil {
            var writer = JSONWriter()
            writer.collectsReferences = true
            writer.bytes.append(contentsOf: Array("{\"id\":\"ev-\(n)\",\"device\":\"\(device)\",".utf8))
            writer.appendStable(UnsafeBufferPointer(storage.tail))
            writer.bytes.append(contentsOf: Array("}\n".utf8))
            store.remember(event: "ev-\(n)", written: writer, holding: storage)
        }
        var lines = [DeliveryLedger.Line(key: "0:\(String(n, radix: 16))", json: Array("{\"delivered\":\(n)}".utf8), delivery: nil)]
        if n % 3 == 0 && n > 3 {
            lines.append(DeliveryLedger.Line(key: "0:\(String(n - 3, radix: 16))", json: Array("{\"clicked\":\(n)}".utf8), delivery: nil))
        }
        if n % 5 == 0 && n > 5 { lines.append(DeliveryLedger.Line(key: "0:\(String(n - 5, radix: 16))", json: [], delivery: nil)) }
        try store.saveLedger(lines)
        try store.commit()
    }

    /// Every row of the tables the journal writes, as a string to compare.
    static func tables(_ store: SQLiteStateStore) throws -> [String] {
        try store.fold()
        var rows: [String] = []
        for query in [
            "SELECT app || ' ' || device || ' ' || campaign || ' ' || time FROM firing ORDER BY app, device, campaign",
            "SELECT rowid || ' ' || app || ' ' || event || ' ' || hex(records) || ' ' || at FROM answered ORDER BY rowid",
            "SELECT seq || ' ' || app || ' ' || key || ' ' || hex(line) FROM ledger ORDER BY seq",
            "SELECT id || ' ' || last FROM tail ORDER BY id",
        ] {
            let statement = try store.db.prepare(query)
            defer { statement.finalize() }
            while try statement.step() { rows.append(statement.text(0)) }
        }
        return rows
    }

    @Test func aCommitOfOneEventWritesAtMost8KiBOfWAL() throws {
        let store = try SQLiteStateStore(path: directory + "/pages.db")
        defer { store.close() }
        let storage = Storage()
        // A warm-up: the tail, the devices' rows, the tables' first pages.
        for n in 0..<300 { try Self.event(n, store, storage) }
        var pages: [Int] = []
        for n in 300..<1_300 {
            try Self.event(n, store, storage)
            pages.append(store.lastCommitPages)
            // Folded between commits, a step at a time, as `serve` does when the owner is idle.
            store.foldStep()
        }
        #expect(store.journalFolds > 10)
        // WAL frames are a page and a 24-byte header: 8 KiB is under two frames a commit.
        let bytes = Double(pages.reduce(0, +)) * Double(4096 + 24) / Double(pages.count)
        #expect(bytes <= 8 * 1024, "\(bytes) bytes of WAL a commit; pages: \(Dictionary(grouping: pages) { $0 }.mapValues(\.count))")
        // Every commit writes its slot's leaf page and nothing else.
        #expect(pages.filter { $0 == 1 }.count > pages.count * 9 / 10, "\(Dictionary(grouping: pages) { $0 }.mapValues(\.count))")
    }

    /// Two stores, `a` and `b` in the test's folder, closed after `body`.
    func withStores(_ a: String, _ b: String, _ body: (SQLiteStateStore, SQLiteStateStore) throws -> Void) throws {
        let (first, second) = (try SQLiteStateStore(path: directory + "/" + a), try SQLiteStateStore(path: directory + "/" + b))
        defer {
            first.close()
            second.close()
        }
        try body(first, second)
    }

    @Test func foldingGivesTheTablesTheDirectWritesGive() throws {
        try withStores("journaled.db", "direct.db") { journaled, direct in
            let storage = Storage()
            for n in 0..<700 {
                try Self.event(n, journaled, storage)
                try Self.event(n, direct, storage, direct: true)
                // A step now and then: the rows accumulate past the steps, and the slots run out.
                if n % 50 == 0 { journaled.foldStep() }
                // The same event again: answered from the journal (or the table), nothing changes.
                if n % 7 == 0 {
                    #expect(journaled.answer(event: "ev-\(n)") == direct.answer(event: "ev-\(n)"))
                }
            }
            #expect(journaled.journalFolds > 0)
            #expect(direct.journalFolds == 0)
            let (journaledRows, directRows) = (try Self.tables(journaled), try Self.tables(direct))
            #expect(journaledRows == directRows)
            let (a, b) = (try journaled.export(), try direct.export())
            #expect(a.firings == b.firings)
            #expect(a.answers.map(\.event) == b.answers.map(\.event))
            #expect(a.answers.map(\.records) == b.answers.map(\.records))
            #expect(a.ledger.map(\.key) == b.ledger.map(\.key))
            #expect(a.ledger.map(\.line) == b.ledger.map(\.line))
        }
    }

    @Test func theJournalIsReplayedAtOpenAfterACrash() throws {
        let path = directory + "/crash.db"
        let storage = Storage()
        var store = try SQLiteStateStore(path: path)
        for n in 0..<40 { try Self.event(n, store, storage) }
        let reference = try SQLiteStateStore(path: directory + "/reference.db")
        for n in 0..<40 { try Self.event(n, reference, storage) }
        // The first commit went to the tables (a new tail, the ledger's rows read); the others
        // are journal rows.
        let rows = store.journalRows
        #expect(rows == 39)
        // A crash: the rows are committed, nothing folded them.
        store.closeWithoutFolding()
        let db = try SQLiteConnection(path: path)
        #expect(try db.integer(Self.filled) == Int64(rows))
        #expect(try db.integer("SELECT count(*) FROM answered") == Int64(40 - rows))
        db.close()

        store = try SQLiteStateStore(path: path)
        defer {
            store.close()
            reference.close()
        }
        #expect(try store.db.integer(Self.filled) == 0)
        #expect(try store.db.integer("SELECT count(*) FROM journal") == Int64(SQLiteStateStore.journalFoldRows))
        #expect(store.heldAnswers == 40)
        #expect(store.answer(event: "ev-39") == reference.answer(event: "ev-39"))
        #expect(store.lastFiring(device: "device-5", campaign: CampaignID(eid: "c2"))?.milliseconds == 22_000)
        #expect(try Self.tables(store) == Self.tables(reference))
        // The state goes on from there as if nothing had happened.
        try Self.event(40, store, storage)
        try Self.event(40, reference, storage)
        #expect(try Self.tables(store) == Self.tables(reference))
    }

    @Test func aRolledBackTransactionLeavesNothingInTheOverlay() throws {
        let store = try SQLiteStateStore(path: directory + "/rollback.db")
        defer { store.close() }
        let storage = Storage()
        // The first commit goes to the tables (a new tail, the ledger's rows read), the second to
        // the journal.
        try Self.event(1, store, storage)
        try Self.event(2, store, storage)
        #expect(store.journalRows == 1)
        try store.begin()
        store.recordFiring(device: "device-1", campaign: CampaignID(eid: "c1"), at: Timestamp(milliseconds: 99_000))
        store.remember(event: "gone", records: Array("{}\n".utf8))
        #expect(store.answer(event: "gone") != nil)
        store.rollback()
        #expect(store.answer(event: "gone") == nil)
        #expect(store.lastFiring(device: "device-1", campaign: CampaignID(eid: "c1"))?.milliseconds == 1_000)
        #expect(store.journalRows == 1)
        #expect(store.heldAnswers == 2)
    }

    /// A file of `count` events, closed as a crash leaves it (`crash`) or as `close()` does, and
    /// opened with a plain connection.
    func file(_ name: String, events count: Int, crash: Bool) throws -> (path: String, db: SQLiteConnection) {
        let path = directory + "/" + name
        let storage = Storage()
        let store = try SQLiteStateStore(path: path)
        for n in 0..<count { try Self.event(n, store, storage) }
        if crash { store.closeWithoutFolding() } else { store.close() }
        return (path, try SQLiteConnection(path: path))
    }

    @Test func aDamagedEntryIsRefusedNamingIt() throws {
        let (path, db) = try file("damaged.db", events: 3, crash: true)
        let seq = try db.integer("SELECT max(seq) FROM journal WHERE substr(change, 1, 1) <> x'00'")
        try db.execute("UPDATE journal SET change = substr(change, 1, length(change) - 7) WHERE seq = \(seq)")
        db.close()
        #expect {
            try SQLiteStateStore(path: path).close()
        } throws: { error in
            "\(error)".contains("the journal's entry \(seq) is damaged")
        }
        // Nothing of the journal was applied.
        let after = try SQLiteConnection(path: path)
        defer { after.close() }
        #expect(try after.integer(Self.filled) == 2)
        #expect(try after.integer("SELECT count(*) FROM answered") == 1)
    }

    @Test func anEntryDecodesAsEncodedAndATruncatedOneNever() throws {
        let changes: [StateChange] = [
            .firing(app: 0, device: "dévice", campaign: "c1", time: 1_700_000_000_123),
            .answer(row: 42, app: 3, event: "ev-1", stored: [1, 2, 3, 0, 255], at: -5),
            .ledgerDeleted(seq: 7),
            .ledgerSaved(seq: 8, app: 0, key: "0:ab", line: Array("{}".utf8)),
        ]
        let bytes = JournalEntry.encode(changes)
        #expect(try JournalEntry.decode(bytes, seq: 1, path: "p") == changes)
        for count in 0..<bytes.count {
            #expect(throws: StoreError.self) { try JournalEntry.decode(Array(bytes.prefix(count)), seq: 9, path: "p") }
        }
        var flipped = bytes
        flipped[10] ^= 0x20
        #expect { try JournalEntry.decode(flipped, seq: 9, path: "p") } throws: { "\($0)".contains("entry 9 is damaged") }
    }

    @Test func aFileOfVersion4OpensAsVersion5() throws {
        let (path, db) = try file("v4.db", events: 5, crash: false)
        try db.execute("DROP TABLE journal; PRAGMA user_version = 4")
        db.close()

        let storage = Storage()
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(try store.db.integer("PRAGMA user_version") == 5)
        #expect(try store.db.integer("SELECT count(*) FROM journal") == Int64(SQLiteStateStore.journalFoldRows))
        #expect(store.answer(event: "ev-4") != nil)
        try Self.event(5, store, storage)
        try Self.event(6, store, storage)
        #expect(store.journalRows == 1)
        #expect(try store.answers().count == 7)
    }

    // MARK: - The fold in steps

    /// The lowest slot a commit wrote and no fold blanked since.
    static let firstFilled = "SELECT min(seq) FROM journal WHERE substr(change, 1, 1) <> x'00'"

    @Test func aStepFoldsItsOldestRowsAndLeavesTheRestReplayable() throws {
        let path = directory + "/step.db"
        let storage = Storage()
        var store = try SQLiteStateStore(path: path)
        let reference = try SQLiteStateStore(path: directory + "/step-reference.db")
        defer { reference.close() }
        for n in 0..<20 {
            try Self.event(n, store, storage)
            try Self.event(n, reference, storage)
        }
        // The first commit went to the tables; events 1...19 are in slots 1...19.
        #expect(store.journalRows == 19)
        let step = SQLiteStateStore.journalStepRows
        #expect(step < 19)
        store.foldStep()
        #expect(store.journalFolds == 1)
        #expect(store.journalRows == 19 - step)
        // Exactly the oldest rows' slots are blank, their events in the tables; the others as
        // they were.
        #expect(try store.db.integer(Self.firstFilled) == Int64(step + 1))
        #expect(try store.db.integer(Self.filled) == Int64(19 - step))
        #expect(try store.db.integer("SELECT count(*) FROM answered") == Int64(1 + step))
        #expect(try store.db.integer("SELECT max(rowid) FROM answered") == Int64(1 + step))
        // A crash now: the rows left are replayed at open, after those folded.
        store.closeWithoutFolding()
        store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(try store.db.integer(Self.filled) == 0)
        #expect(try Self.tables(store) == Self.tables(reference))
    }

    /// `count` events into a file with `steps` after each (given the event's number), then a
    /// crash; the same into a file closed as usual; both reopened: the same state (an export of
    /// each, and every row of the tables), and the same again after one more event.
    func crashAfterSteps(_ name: String, events count: Int, steps: (Int, SQLiteStateStore) -> Void, atCrash: (SQLiteStateStore) throws -> Void) throws {
        let storage = Storage()
        let (crashedPath, referencePath) = (directory + "/\(name).db", directory + "/\(name)-reference.db")
        let crashed = try SQLiteStateStore(path: crashedPath)
        let reference = try SQLiteStateStore(path: referencePath)
        for n in 0..<count {
            try Self.event(n, crashed, storage)
            try Self.event(n, reference, storage)
            steps(n, crashed)
        }
        try atCrash(crashed)
        crashed.closeWithoutFolding()
        reference.close()

        let (a, b) = (try SQLiteStateStore(path: crashedPath), try SQLiteStateStore(path: referencePath))
        defer {
            a.close()
            b.close()
        }
        let (x, y) = (try a.export(), try b.export())
        #expect(x.firings == y.firings)
        #expect(x.answers.map(\.event) == y.answers.map(\.event))
        #expect(x.answers.map(\.records) == y.answers.map(\.records))
        #expect(x.answers.map(\.at) == y.answers.map(\.at))
        #expect(x.ledger.map(\.key) == y.ledger.map(\.key))
        #expect(x.ledger.map(\.line) == y.ledger.map(\.line))
        #expect(a.heldAnswers == b.heldAnswers)
        #expect(try Self.tables(a) == Self.tables(b))
        try Self.event(count, a, storage)
        try Self.event(count, b, storage)
        #expect(try Self.tables(a) == Self.tables(b))
    }

    @Test func aCrashAfterAStepGivesTheStateOfNoCrash() throws {
        let step = SQLiteStateStore.journalStepRows
        // Blank slots before the rows left: one step of 30 rows.
        try crashAfterSteps("midway", events: 31, steps: { n, store in if n == 30 { _ = store.foldStep() } }) { store in
            let first = try store.db.integer(Self.firstFilled)
            #expect(first == Int64(step + 1))
        }
        // The steps caught up, and the commits since took the first slots again: slots before
        // and after them were written and blanked.
        try crashAfterSteps("again", events: 1 + 2 * step + 5, steps: { n, store in if n == 2 * step { while store.foldStep() {} } }) { store in
            let (first, filled) = (try store.db.integer(Self.firstFilled), try store.db.integer(Self.filled))
            #expect(store.journalRows == 5)
            #expect(first == 1)
            #expect(filled == 5)
        }
        // Many events, steps at irregular moments: the slots used up and started again, more than once.
        try crashAfterSteps("irregular", events: 700, steps: { n, store in
            if n % 5 == 0 {
                _ = store.foldStep()
                _ = store.foldStep()
            } else if n % 3 == 0 {
                _ = store.foldStep()
            }
        }) { store in
            #expect(store.journalRows > 0)
            #expect(store.journalFolds > 50)
        }
    }

    @Test func theWholeFoldStillHappensWhenNoSlotIsLeft() throws {
        try withStores("bound.db", "bound-reference.db") { store, reference in
            let storage = Storage()
            let step = SQLiteStateStore.journalStepRows
            for n in 0..<100 {
                try Self.event(n, store, storage)
                try Self.event(n, reference, storage)
            }
            store.foldStep()
            // Every slot used: those of the step blank, the rest the rows left.
            for n in 100...SQLiteStateStore.journalFoldRows {
                try Self.event(n, store, storage)
                try Self.event(n, reference, storage)
            }
            #expect(store.journalRows == SQLiteStateStore.journalFoldRows - step)
            let filled = try store.db.integer(Self.filled)
            #expect(filled == Int64(SQLiteStateStore.journalFoldRows - step))
            let folds = store.journalFolds
            // The next transaction folds everything first, then takes the first slot.
            try Self.event(SQLiteStateStore.journalFoldRows + 1, store, storage)
            try Self.event(SQLiteStateStore.journalFoldRows + 1, reference, storage)
            #expect(store.journalFolds == folds + 1)
            #expect(store.journalRows == 1)
            let (filledAfter, first) = (try store.db.integer(Self.filled), try store.db.integer(Self.firstFilled))
            #expect(filledAfter == 1)
            #expect(first == 1)
            let (rows, referenceRows) = (try Self.tables(store), try Self.tables(reference))
            #expect(rows == referenceRows)
        }
    }

    @Test func behindTheStepsAStepIsTakenOnceTheRepliesAreSent() throws {
        let store = try SQLiteStateStore(path: directory + "/catch-up.db")
        defer { store.close() }
        let storage = Storage()
        let from = SQLiteStateStore.journalCatchUpRows
        // No idle moment: the rows gather; below the mark nothing is folded.
        for n in 0..<from {
            try Self.event(n, store, storage)
            store.catchUpStep()
        }
        #expect(store.journalRows == from - 1)
        #expect(store.journalFolds == 0)
        // From the mark on, a step after each commit holds the rows there, far from the last slot.
        for n in from..<(from + 300) {
            try Self.event(n, store, storage)
            store.catchUpStep()
            #expect(store.journalRows < from)
        }
        #expect(store.journalFolds > 0)
    }

    @Test func afterAStepTheReadsSeeTheTablesAndTheRowsLeft() throws {
        let store = try SQLiteStateStore(path: directory + "/overlay.db")
        defer { store.close() }
        let step = SQLiteStateStore.journalStepRows
        let (c1, c2) = (CampaignID(eid: "c1"), CampaignID(eid: "c2"))
        func commit(_ changes: () -> Void) throws {
            try store.begin()
            changes()
            try store.commit()
        }
        // The first row: an answer and two firings of one device; then other devices.
        try commit {
            store.recordFiring(device: "d", campaign: c1, at: Timestamp(milliseconds: 1_000))
            store.recordFiring(device: "d", campaign: c2, at: Timestamp(milliseconds: 1_500))
            store.remember(event: "folded", records: Array("{\"a\":1}\n".utf8))
        }
        for k in 1..<step {
            try commit { store.recordFiring(device: "other-\(k)", campaign: c1, at: Timestamp(milliseconds: Int64(k))) }
        }
        // The row after the step's: one of the firings changed again, a new answer.
        try commit {
            store.recordFiring(device: "d", campaign: c1, at: Timestamp(milliseconds: 2_000))
            store.remember(event: "unfolded", records: Array("{\"b\":2}\n".utf8))
        }
        #expect(store.journalRows == step + 1)
        store.foldStep()
        #expect(store.journalRows == 1)
        // The overlay holds the row left, and nothing of those folded.
        #expect(store.journal.firings.count == 1)
        #expect(store.journal.answers.count == 1)
        #expect(try store.db.integer("SELECT time FROM firing WHERE device = 'd' AND campaign = '\(c1.canonical)'") == 1_000)
        #expect(store.answer(event: "folded") == Array("{\"a\":1}\n".utf8))
        #expect(store.answer(event: "unfolded") == Array("{\"b\":2}\n".utf8))
        #expect(store.lastFiring(device: "d", campaign: c1)?.milliseconds == 2_000)
        #expect(store.lastFiring(device: "d", campaign: c2)?.milliseconds == 1_500)
        let campaigns = [c1, c2]
        var times: [Int64?] = [nil, nil]
        campaigns.withUnsafeBufferPointer { ids in
            times.withUnsafeMutableBufferPointer { store.lastFirings("d", ids, into: $0.baseAddress!) }
        }
        #expect(times == [2_000, 1_500])
        // A rollback rebuilds the overlay from the rows left.
        try store.begin()
        store.recordFiring(device: "d", campaign: c1, at: Timestamp(milliseconds: 3_000))
        store.recordFiring(device: "d", campaign: c2, at: Timestamp(milliseconds: 3_000))
        store.rollback()
        #expect(store.lastFiring(device: "d", campaign: c1)?.milliseconds == 2_000)
        #expect(store.lastFiring(device: "d", campaign: c2)?.milliseconds == 1_500)
        #expect(store.journal.firings.count == 1)
        #expect(store.heldAnswers == 2)
    }

    @Test func anIdOfTheTablesAnsweredAgainInTheJournalFoldsWithTheJournalsAnswer() throws {
        let path = directory + "/again.db"
        var store = try SQLiteStateStore(path: path)
        func answer(_ id: String, _ records: String) throws {
            try store.begin()
            store.remember(event: id, records: Array(records.utf8))
            try store.commit()
        }
        try answer("twice", "{\"first\":1}\n")
        try answer("other", "{}\n")
        try store.fold()
        #expect(try store.db.integer("SELECT count(*) FROM answered") == 2)
        // Answered again without the lookup (a caller's error): the commit goes to the journal,
        // which knows only its own answers.
        try answer("twice", "{\"second\":2}\n")
        #expect(store.journalRows == 1)
        #expect(store.answer(event: "twice") == Array("{\"second\":2}\n".utf8))
        // The fold does not fail on it: the journal's answer wins, in the row it was given.
        try store.fold()
        #expect(store.journalRows == 0)
        #expect(store.answer(event: "twice") == Array("{\"second\":2}\n".utf8))
        #expect(try store.db.integer("SELECT count(*) FROM answered") == 2)
        #expect(try store.db.integer("SELECT rowid FROM answered WHERE event = 'twice'") == 3)
        #expect(store.heldAnswers == 2)
        // And later folds go on.
        try answer("third", "{}\n")
        try store.fold()
        #expect(try store.db.integer("SELECT count(*) FROM answered") == 3)
        #expect(store.heldAnswers == 3)
        // The same at open, after a crash left it in the journal.
        try answer("third", "{\"again\":3}\n")
        store.closeWithoutFolding()
        store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(store.answer(event: "third") == Array("{\"again\":3}\n".utf8))
        #expect(store.heldAnswers == 3)
        #expect(try store.db.integer(Self.filled) == 0)
    }
}
