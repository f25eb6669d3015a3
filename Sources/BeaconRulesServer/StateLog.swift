public import BeaconRules
public import BeaconRulesStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the `EngineOwner` keeps besides the suppression state: the log of answered events, the
/// delivery ledger, the presence snapshot and the outbox, with the transactions that make them
/// durable. `SQLiteStateStore` is one (`--state`); `MemoryStateLog` is the one without a file.
///
/// Not `Sendable`: the owner thread makes every call.
public protocol StateLog: AnyObject {
    func begin() throws(StoreError)
    func commit() throws(StoreError)
    func rollback()
    /// The records an event id was answered with, nil when the id is new.
    func answer(event id: String) -> [UInt8]?
    func remember(event id: String, records: [UInt8])
    func loadLedger() throws(StoreError) -> DeliveryLedger
    func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError)
    func loadPresence() throws(StoreError) -> [UInt8]?
    func savePresence(_ snapshot: [UInt8])
    func appendOutbox(_ records: [UInt8])
    func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])]
    func close()
}

extension SQLiteStateStore: StateLog {}

/// The state of a server without `--state`: it lives as long as the process, in hash tables, so
/// that no event pays for SQL. Nothing here can fail, so a transaction is only a bracket.
public final class MemoryStateLog: StateLog {
    /// Where each answered event's records sit in `arena`.
    private var answers: [String: ByteArena.Slot] = [:]
    private var arena = ByteArena()
    private var outboxEntries: [(seq: Int64, records: [UInt8])] = []

    public init() {
        // Room for a million answers before the first rehash (a rehash moves every key, and the
        // log only grows); untouched capacity costs address space, not memory.
        answers.reserveCapacity(1 << 20)
    }

    public func begin() {}
    public func commit() {}
    public func rollback() {}
    public func answer(event id: String) -> [UInt8]? { answers[id].map { arena.bytes($0) } }
    public func remember(event id: String, records: [UInt8]) { answers[id] = arena.append(records) }
    /// The ledger lives in the engine; there is nothing saved to load.
    public func loadLedger() -> DeliveryLedger { DeliveryLedger() }
    public func saveLedger(_ lines: [DeliveryLedger.Line]) {}
    public func loadPresence() -> [UInt8]? { nil }
    public func savePresence(_ snapshot: [UInt8]) {}

    public func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        outboxEntries.append(((outboxEntries.last?.seq ?? 0) + 1, records))
    }

    public func outbox(after: Int64, limit: Int) -> [(seq: Int64, records: [UInt8])] {
        // Sequence numbers are 1, 2, 3...: entry n sits at index n - 1.
        let start = Int(min(max(after, 0), Int64(outboxEntries.count)))
        return Array(outboxEntries[start..<min(outboxEntries.count, start + limit)])
    }

    public func close() {}
}

/// Append-only bytes in 2 MiB chunks that are never moved or freed before the arena is.
///
/// The answer log keeps about 700 bytes for every event, for as long as the server runs. Kept as
/// one array per event, that growth went through malloc a page at a time (an `mprotect` and a
/// page fault every few events, a third of the server's time on this VM); chunks asked for
/// transparent huge pages fault in 2 MiB at a time.
struct ByteArena: ~Copyable {
    struct Slot {
        var chunk: UInt32
        var offset: UInt32
        var count: UInt32
    }

    static let chunkSize = 2 << 20
    private var chunks: [UnsafeMutableRawPointer] = []
    private var used = ByteArena.chunkSize

    mutating func append(_ bytes: [UInt8]) -> Slot {
        if bytes.count > Self.chunkSize - used {
            // A record set larger than a chunk gets a chunk of its own size.
            let size = max(Self.chunkSize, bytes.count)
            chunks.append(Self.allocate(size))
            used = bytes.count > Self.chunkSize ? size : 0
            if bytes.count > Self.chunkSize {
                bytes.withUnsafeBytes { chunks[chunks.count - 1].copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return Slot(chunk: UInt32(chunks.count - 1), offset: 0, count: UInt32(bytes.count))
            }
        }
        let slot = Slot(chunk: UInt32(chunks.count - 1), offset: UInt32(used), count: UInt32(bytes.count))
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { (chunks[chunks.count - 1] + used).copyMemory(from: base, byteCount: raw.count) }
        }
        used += bytes.count
        return slot
    }

    func bytes(_ slot: Slot) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: chunks[Int(slot.chunk)] + Int(slot.offset), count: Int(slot.count)))
    }

    private static func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, chunkSize, size) == 0, let pointer else { fatalError("out of memory for the answer log") }
        _ = madvise(pointer, size, MADV_HUGEPAGE)
        return pointer
    }

    deinit {
        for chunk in chunks { free(chunk) }
    }
}
