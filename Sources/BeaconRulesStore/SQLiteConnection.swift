import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `SQLITE_TRANSIENT` is a C macro Swift cannot import: SQLite copies bound bytes when given it.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Deliberately not `Sendable`: it is opened in no-mutex mode and belongs to
/// exactly one owner (the replay loop, or the server's state thread), which serializes every call.
final class SQLiteConnection {
    let path: String
    private var handle: OpaquePointer?

    /// SQLite's memory statistics off, once, before its first connection opens: no process-wide
    /// mutex around each of its allocations (the store reads no memory statistics).
    private static let memoryStatisticsOff: Int32 = beaconrules_sqlite3_memory_statistics_off()

    init(path: String) throws(StoreError) {
        _ = Self.memoryStatisticsOff
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw StoreError(path: path, message: "cannot open the state file: \(reason)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Closes the connection; statements must be finalized first (their owner does so).
    func close() {
        guard let db = handle else { return }
        sqlite3_close_v2(db)
        handle = nil
    }

    /// Runs SQL that returns no rows (schema, pragmas, transaction control).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? lastError(rc)
            sqlite3_free(message)
            throw error(reason, code: rc)
        }
    }

    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(lastError(rc), code: rc) }
        return SQLiteStatement(statement, connection: self)
    }

    /// One integer from a single-row query (pragmas, counts).
    func integer(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        defer { statement.finalize() }
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// Frames in the WAL after this connection's last commit, once `watchWAL()` is on.
    private(set) var walFrames = 0

    /// Turns SQLite's automatic checkpoints off on this connection (they would run inside its
    /// commits) and has every commit report the WAL's length in `walFrames` instead.
    func watchWAL() throws(StoreError) {
        try execute("PRAGMA wal_autocheckpoint = 0")
        // The hook replaces the automatic checkpointer. `self` outlives it: `close()` (at the
        // latest in deinit) closes the handle, after which the hook is never called.
        sqlite3_wal_hook(handle, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies WAL frames back into the database file. `passive` copies what it can without waiting
    /// for anyone; `truncate` waits for the writer and readers (busy timeout), copies everything
    /// and empties the WAL file. Returns the frames in the WAL and the frames now copied.
    @discardableResult
    func checkpoint(truncate: Bool) throws(StoreError) -> (frames: Int, copied: Int) {
        var frames: Int32 = 0
        var copied: Int32 = 0
        let mode = truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, mode, &frames, &copied)
        guard rc == SQLITE_OK else { throw error(lastError(rc), code: rc) }
        if truncate { walFrames = 0 }
        return (Int(frames), Int(copied))
    }

    /// Pages this connection has written (to the WAL, in WAL mode) so far.
    var pagesWritten: Int {
        var current: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highest, 0)
        return Int(current)
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }
    /// The row number of the last row inserted on this connection.
    var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }

    func lastError(_ rc: Int32) -> String {
        guard let handle else { return String(cString: sqlite3_errstr(rc)) }
        return String(cString: sqlite3_errmsg(handle))
    }

    /// An error that says what a user can do about the common cases.
    func error(_ reason: String, code: Int32) -> StoreError {
        switch code & 0xFF {
        case SQLITE_NOTADB:
            return StoreError(path: path, message: "not a beaconrules state file (not an SQLite database); give --state a new file name")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(path: path, message: "the state file is in use by another beaconrules process (\(reason)); stop it or use another --state file")
        case SQLITE_FULL:
            return StoreError(path: path, message: "the disk is full (\(reason)); free space, then resend what was not answered")
        case SQLITE_READONLY:
            return StoreError(path: path, message: "the state file is read-only (\(reason))")
        default:
            return StoreError(path: path, message: reason)
        }
    }
}

/// A prepared statement, reused across calls (bind, step, reset).
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { finalize() }

    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    func bind(_ index: Int32, _ text: String) {
        sqlite3_bind_text(handle, index, text, -1, transient)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        // A zero-length blob needs a non-nil pointer, or SQLite stores NULL.
        if blob.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), transient)
        }
    }

    /// Binds bytes SQLite does not copy: they must stay valid until the statement is reset
    /// (`step()` inside the closure that lends them, then `reset()`). Saves a copy and an
    /// allocation of large values bound once per row.
    func bind(_ index: Int32, borrowing bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil)
        }
    }

    /// Text bound as `bind(_:borrowing:)` binds bytes: valid until the statement is reset.
    func bind(_ index: Int32, borrowingText utf8: UnsafeBufferPointer<UInt8>) {
        guard let start = utf8.baseAddress, !utf8.isEmpty else { return bind(index, "") }
        sqlite3_bind_text(handle, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil)
    }

    /// Advances one row: true when a row is ready, false when done.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(connection.lastError(rc), code: rc)
        }
    }

    /// Ready for the next use: bindings cleared, cursor rewound.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The one integer of a single-row query, the statement reset for its next use.
    func integer() throws(StoreError) -> Int64 {
        defer { reset() }
        return try step() ? int64(0) : 0
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }

    /// Whether the text in `column` is `string`, compared by bytes (no `String` made).
    func text(_ column: Int32, equals string: String) -> Bool {
        // The text first: `sqlite3_column_bytes` then counts the bytes of that text.
        guard let pointer = sqlite3_column_text(handle, column) else { return string.isEmpty }
        let count = Int(sqlite3_column_bytes(handle, column))
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == count && (count == 0 || memcmp(utf8.baseAddress!, pointer, count) == 0)
        }
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
