@testable import BeaconRules
@testable import BeaconRulesStore
import Foundation
import Testing

/// What a commit of one event writes to the WAL (issue 32, "SQLite at low rates"): a record
/// tail's `last` is written once it lags (`RecordTails.lastSlack`), not at every commit, so one
/// event's commit writes the pages of its answer, the answer's id, its suppression rows and its
/// ledger line, and no tail's; a tail still named survives a crash that left its `last` behind,
/// and retention; a file of version 3 opens as 4.
@Suite("SQLite: one event's commit")
struct SQLiteOneEventCommitTests {
    let directory = Paths.temporaryDirectory()

    /// Sends each line alone and waits for its reply, so that every commit holds one event.
    static func oneAtATime(port: Int, _ lines: [String]) async throws {
        try await LineClient.withConnection(port: port) { session in
            for line in lines {
                try await session.send([line])
                #expect(try await session.receive() != nil)
            }
        }
    }

    @Test func aCommitOfOneEventWritesNoTailsPage() async throws {
        let state = directory + "/one.db"
        try await ServerProcess.with(["--state", state, "--metrics-port", "0"]) { server in
            let metricsPort = try #require(await server.printedPort("metrics on"))
            // 20 devices, 30 events each: first a warm-up (tails, the devices' first rows), then
            // measured.
            let devices = MuseumTrace.devices(20, events: 30, prefix: "one")
            let warmUp = devices.flatMap { $0.prefix(10) }
            try await Self.oneAtATime(port: server.port, warmUp)
            // The tails so far (read beside the server: the file is in WAL mode; a new tail is
            // written to its table at once), and the answers (numbered from 1: some may still be in
            // the journal, not yet folded into their table).
            let tailsBefore = try {
                let db = try SQLiteConnection(path: state)
                defer { db.close() }
                return try db.integer("SELECT coalesce(max(id), 0) FROM tail")
            }()
            let answersBefore = Int64(warmUp.count)
            #expect(tailsBefore > 0)
            let before = try MetricsEndpointTests.scrape(metricsPort)
            let measured = devices.flatMap { $0.dropFirst(10) }
            try await Self.oneAtATime(port: server.port, measured)
            let after = try MetricsEndpointTests.scrape(metricsPort)

            let commits = (after["beaconrules_commit_seconds_count"] ?? 0) - (before["beaconrules_commit_seconds_count"] ?? 0)
            let bytes = (after["beaconrules_wal_bytes_total"] ?? 0) - (before["beaconrules_wal_bytes_total"] ?? 0)
            #expect(commits == Double(measured.count))
            // Whole pages of 4 KiB (the frame headers aside), the journal's folds included: 4.5 a
            // commit on average before the journal (5.4 when every commit wrote the tails' `last`);
            // a commit's own pages are `SQLiteJournalTests`' (at most 8 KiB).
            #expect(bytes.truncatingRemainder(dividingBy: 4096) == 0)
            #expect(bytes / commits <= 5 * 4096)
            // Closed: the journal folded into the tables.
            await server.stop()
            // No tail the warm-up had made was written again by the measured commits (its `last`
            // still names a warm-up answer): fewer than `lastSlack` answers came since.
            let db = try SQLiteConnection(path: state)
            defer { db.close() }
            #expect(try db.integer("SELECT max(rowid) FROM answered") - answersBefore == Int64(measured.count))
            #expect(try db.integer("SELECT count(*) FROM tail WHERE id <= \(tailsBefore) AND last > \(answersBefore)") == 0)
            #expect(try db.integer("SELECT count(*) FROM tail WHERE id <= \(tailsBefore)") == tailsBefore)
        }
    }

    /// Bytes that stay put while the store refers to them (as the engine's rendered tails do).
    final class Storage {
        let tail: UnsafeMutableBufferPointer<UInt8>
        init() {
            tail = .allocate(capacity: 400)
            tail.initialize(repeating: UInt8(ascii: "t"))
        }
        deinit { tail.deallocate() }
    }

    /// An answer naming the tail, in a commit of its own, given at wall clock `at`.
    static func answer(_ store: SQLiteStateStore, _ id: String, naming storage: Storage, at: Int64) throws {
        var writer = JSONWriter()
        writer.collectsReferences = true
        writer.bytes.append(contentsOf: Array("{\"id\":\"\(id)\",".utf8))
        writer.appendStable(UnsafeBufferPointer(storage.tail))
        writer.bytes.append(contentsOf: Array("}\n".utf8))
        #expect(writer.references.count == 1)
        try store.begin()
        store.setClock(Timestamp(milliseconds: at))
        store.remember(event: id, written: writer, holding: storage)
        try store.commit()
    }

    static func expected(_ id: String) -> [UInt8] {
        Array("{\"id\":\"\(id)\",".utf8) + Array(repeating: UInt8(ascii: "t"), count: 400) + Array("}\n".utf8)
    }

    @Test func aTailNamedAfterItsLastWasWrittenSurvivesACrashAndRetention() throws {
        let path = directory + "/slack.db"
        let storage = Storage()
        var store = try SQLiteStateStore(path: path)
        for n in 1...10 { try Self.answer(store, "e\(n)", naming: storage, at: Int64(n)) }
        // The tail's `last` was written at its first commit only: it lags nine answers behind.
        #expect(try store.db.integer("SELECT last FROM tail") == 1)
        // A crash: nothing more is written (close writes nothing either).
        store.close()

        store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(try store.db.integer("SELECT last FROM tail") == 1)
        // The first nine answers forgotten: the oldest left (row 10) is past the file's `last`.
        try store.begin()
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 10), limit: 100) == 9)
        try store.commit()
        #expect(store.heldAnswers == 1)
        #expect(try store.db.integer("SELECT count(*) FROM tail") == 1)
        #expect(store.answer(event: "e10") == Self.expected("e10"))

        // Named again after the reopen, and forgotten with every answer: the tail goes too.
        try Self.answer(store, "e11", naming: storage, at: 11)
        #expect(store.answer(event: "e11") == Self.expected("e11"))
        try store.begin()
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 12), limit: 100) == 2)
        try store.commit()
        #expect(try store.db.integer("SELECT count(*) FROM tail") == 0)
    }

    @Test func aTailsLastIsWrittenWhenItLagsBySlackRows() throws {
        let path = directory + "/lag.db"
        let storage = Storage()
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        try Self.answer(store, "first", naming: storage, at: 1)
        // Answers naming no tail move the row numbers on.
        try store.begin()
        for n in 0..<Int(RecordTails.lastSlack) { store.remember(event: "plain-\(n)", records: Array("{}\n".utf8)) }
        try store.commit()
        try Self.answer(store, "second", naming: storage, at: 2)
        #expect(try store.db.integer("SELECT last FROM tail") == RecordTails.lastSlack + 2)
    }

    /// A file of version 3 (the apps' layout, `last` exact) opens as version 5 with every answer
    /// and tail as it was.
    @Test func aFileOfVersion3OpensAsVersion5WithItsAnswers() throws {
        let path = directory + "/v3.db"
        let storage = Storage()
        var store = try SQLiteStateStore(path: path)
        for n in 1...3 { try Self.answer(store, "e\(n)", naming: storage, at: Int64(n)) }
        store.close()
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA user_version = 3")
        db.close()

        store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(try store.db.integer("PRAGMA user_version") == 5)
        for n in 1...3 { #expect(store.answer(event: "e\(n)") == Self.expected("e\(n)")) }
        #expect(try store.answers().count == 3)
    }
}
