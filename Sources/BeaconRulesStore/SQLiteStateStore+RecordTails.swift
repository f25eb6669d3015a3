package import BeaconRules

/// Record tails kept once in the state file. An answer's records repeat, event after event, the
/// long tail the engine rendered once for their campaign, trigger and language (the in-memory log
/// keeps them by reference, `MemoryStateLog`); the file keeps each such tail once, in `tail`, and an
/// answer written with references is stored as `marker`, the count of references, each one's
/// place and tail number (LEB128), then the answer's own bytes. An answer stored before (or without
/// references) is its records as they are: JSON lines start with `{`, never with `marker`. Either
/// way `answer(event:)` gives the records byte for byte.
///
/// A tail is forgotten when no answer still held names it: each keeps the row number of the last
/// answer naming it (`last`), and when answers are forgotten (oldest row numbers first), the tails
/// whose `last` is more than `lastSlack` rows below the oldest answer left go. `last` is written
/// only once it is that far behind (and before tails are forgotten), not at every commit: a tail's
/// row would otherwise be one more page in the WAL of nearly every commit (docs/performance.md,
/// "One event's commit"). So the `last` in the file is at most `lastSlack - 1` rows behind the true
/// one, after a crash too, and the slack keeps every tail a held answer names.
struct RecordTails {
    /// A run of a writer's referenced bytes, by where it is: the same run is the same tail while
    /// `storage` (what it points into) is kept alive.
    struct Run: Hashable {
        var start: UnsafePointer<UInt8>
        var count: Int
    }

    /// The first byte of an answer stored with tail numbers.
    static let marker: UInt8 = 0x01
    /// What the runs in `ids` point into, held so that no other bytes take their addresses.
    var storage: AnyObject?
    /// The tail number of each run seen since `storage` came.
    var ids: [Run: Int64] = [:]
    /// Tails read back to answer resends, by number.
    var bytes: [Int64: [UInt8]] = [:]
    /// The tails that answers of the open transaction name, with the last such answer's row.
    var named: [Int64: Int64] = [:]
    /// The `last` in the file of each tail looked up or written since the last rollback (a lower
    /// bound: written as `max(last, row)`).
    var saved: [Int64: Int64] = [:]

    /// How far (in answer rows) a tail's `last` in the file may lag the last answer naming it:
    /// a tail named by every event is written once per this many answers.
    static let lastSlack: Int64 = 4096

    /// After a rollback or tails deleted: numbers held may name rows that are gone.
    mutating func forgetNumbers() {
        ids = [:]
        bytes = [:]
        named = [:]
        saved = [:]
    }
}

extension SQLiteStateStore {
    /// Answers are written as the engine wrote them, their tails by reference.
    package var keepsReferences: Bool { true }

    /// `remember` with each referenced run stored as its tail's number.
    package func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        if records.references.isEmpty {
            remember(event: id, records: records.bytes)
            return
        }
        if failure != nil { return }
        if tails.storage !== storage {
            tails.storage = storage
            tails.ids = [:]
        }
        var encoded: [UInt8] = [RecordTails.marker]
        encoded.reserveCapacity(records.bytes.count + 8 + 6 * records.references.count)
        LEB128.append(UInt64(records.references.count), to: &encoded)
        var numbers: [Int64] = []
        do {
            for reference in records.references {
                let number = try tailNumber(RecordTails.Run(start: reference.start, count: reference.count))
                LEB128.append(UInt64(reference.at), to: &encoded)
                LEB128.append(UInt64(number), to: &encoded)
                numbers.append(number)
            }
        } catch {
            note(error)
            return
        }
        encoded.append(contentsOf: records.bytes)
        guard let row = insert(event: id, stored: encoded) else { return }
        for number in numbers { tails.named[number] = row }
    }

    /// The number of the tail with the bytes of `run`, which is added to `tail` when new.
    private func tailNumber(_ run: RecordTails.Run) throws(StoreError) -> Int64 {
        if let number = tails.ids[run] { return number }
        let bytes = Array(UnsafeBufferPointer(start: run.start, count: run.count))
        let select = try db.prepare("SELECT id, last FROM tail WHERE bytes = ?1")
        defer { select.finalize() }
        bytes.withUnsafeBytes { select.bind(1, blob: $0) }
        let number: Int64
        if try select.step() {
            number = select.int64(0)
            tails.saved[number] = select.int64(1)
        } else {
            // A new tail is written to its table: the transaction goes direct.
            try goDirect()
            let insert = try db.prepare("INSERT INTO tail (bytes, last) VALUES (?1, 0)")
            defer { insert.finalize() }
            bytes.withUnsafeBytes { insert.bind(1, blob: $0) }
            _ = try insert.step()
            number = db.lastInsertRowid
        }
        tails.ids[run] = number
        tails.bytes[number] = bytes
        return number
    }

    /// Writes the last answer naming each tail the open transaction's answers named, where the
    /// file's `last` is `lastSlack` rows behind or more, or (`all`, before tails are forgotten)
    /// behind at all. Before the commit.
    func saveNamedTails(all: Bool = false) throws(StoreError) {
        if tails.named.isEmpty { return }
        for (number, row) in tails.named {
            // A new tail's `last` (0) is written at its first commit.
            let saved = tails.saved[number] ?? 0
            if row <= saved || (!all && row - saved < RecordTails.lastSlack && saved > 0) { continue }
            defer { updateTailLast.reset() }
            updateTailLast.bind(1, number)
            updateTailLast.bind(2, row)
            _ = try updateTailLast.step()
            tails.saved[number] = row
        }
        tails.named.removeAll(keepingCapacity: true)
    }

    /// Whether `saveNamedTails()` would write a tail's `last`.
    var tailsDue: Bool {
        tails.named.contains { number, row in
            let saved = tails.saved[number] ?? 0
            return row > saved && (row - saved >= RecordTails.lastSlack || saved == 0)
        }
    }

    /// After answers were forgotten: the tails no answer left names, those whose `last` is
    /// `lastSlack` rows or more before the oldest answer left (the file's `last` may lag by less).
    func forgetUnnamedTails() throws(StoreError) {
        try saveNamedTails(all: true)
        try db.execute("DELETE FROM tail WHERE last + \(RecordTails.lastSlack) <= coalesce((SELECT min(rowid) FROM answered), 9223372036854775807)")
        if db.changes > 0 { tails.forgetNumbers() }
    }

    /// The records of an answer as stored: with its tails' bytes in their places.
    func records(stored: [UInt8]) throws(StoreError) -> [UInt8] {
        guard stored.first == RecordTails.marker else { return stored }
        var cursor = 1
        func number() throws(StoreError) -> UInt64 {
            guard let value = LEB128.read(stored[...], at: &cursor) else {
                throw StoreError(path: path, message: "an answer in the file is damaged: its tail numbers end early")
            }
            return value
        }
        let count = try number()
        var references: [(at: Int, tail: Int64)] = []
        for _ in 0..<count {
            let at = Int(clamping: try number())
            references.append((at, Int64(clamping: try number())))
        }
        let own = stored[cursor...]
        var result: [UInt8] = []
        var position = 0
        for reference in references {
            guard reference.at >= position, reference.at <= own.count else {
                throw StoreError(path: path, message: "an answer in the file is damaged: a tail's place is outside it")
            }
            result.append(contentsOf: own[own.startIndex + position..<own.startIndex + reference.at])
            result.append(contentsOf: try tailBytes(reference.tail))
            position = reference.at
        }
        result.append(contentsOf: own[(own.startIndex + position)...])
        return result
    }

    /// A tail's bytes, read from the file once.
    private func tailBytes(_ number: Int64) throws(StoreError) -> [UInt8] {
        if let bytes = tails.bytes[number] { return bytes }
        let select = try db.prepare("SELECT bytes FROM tail WHERE id = ?1")
        defer { select.finalize() }
        select.bind(1, number)
        guard try select.step() else {
            throw StoreError(path: path, message: "an answer in the file names record tail \(number), which the file does not hold")
        }
        let bytes = select.blob(0)
        tails.bytes[number] = bytes
        return bytes
    }

    /// The table of tails, added to files that have none.
    static let tailTable = "CREATE TABLE IF NOT EXISTS tail (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL UNIQUE, last INTEGER NOT NULL DEFAULT 0)"
}
