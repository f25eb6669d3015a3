public import BeaconRules
public import BeaconRulesStore
import Foundation
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
    /// Whether `remember(event:written:holding:)` keeps a writer's referenced runs as references
    /// (by keeping their storage alive) rather than as copies.
    var keepsReferences: Bool { get }
    /// `remember` for records as the engine wrote them; `storage` is what their references point
    /// into (`RulesEngine.referencedStorage`).
    func remember(event id: String, written records: JSONWriter, holding storage: AnyObject)
    func loadLedger() throws(StoreError) -> DeliveryLedger
    func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError)
    func loadPresence() throws(StoreError) -> [UInt8]?
    func savePresence(_ snapshot: [UInt8])
    func appendOutbox(_ records: [UInt8])
    func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])]
    func close()
}

extension StateLog {
    public var keepsReferences: Bool { false }

    /// A log that keeps bytes (a file) keeps the records joined.
    public func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        remember(event: id, records: records.joinedBytes)
    }
}

extension SQLiteStateStore: StateLog {}

/// The state of a server without `--state`: it lives as long as the process, in hash tables, so
/// that no event pays for SQL. Nothing here can fail, so a transaction is only a bracket.
public final class MemoryStateLog: StateLog {
    /// Where each answered event's records sit: their own bytes in `arena`, and the runs they
    /// refer to (`references[start ..< start + count]`).
    private struct Answer {
        var own: ByteArena.Slot
        var referencesStart: UInt32
        var referencesCount: UInt32
    }

    /// A run of an answer that stays where the engine wrote it (a record tail in the engine's
    /// cache), placed at `at` in the answer's own bytes. 16 bytes where the run is about 700.
    private struct Reference {
        var start: UnsafePointer<UInt8>
        var at: UInt32
        var count: UInt32
    }

    private var answers: [String: Answer] = [:]
    private var arena = ByteArena()
    private var references: [Reference] = []
    /// What the references point into, kept alive as long as the log (an engine replaced by a
    /// reload frees its own copy; the answers given from it must not change).
    private var storages: [AnyObject] = []
    private var outboxEntries: [(seq: Int64, records: [UInt8])] = []

    public init() {
        // Room for a million answers before the first rehash (a rehash moves every key, and the
        // log only grows); untouched capacity costs address space, not memory.
        answers.reserveCapacity(1 << 20)
    }

    public func begin() {}
    public func commit() {}
    public func rollback() {}

    public var keepsReferences: Bool { true }

    public func answer(event id: String) -> [UInt8]? {
        guard let answer = answers[id] else { return nil }
        let own = arena.bytes(answer.own)
        if answer.referencesCount == 0 { return own }
        var joined: [UInt8] = []
        var position = 0
        for reference in references[Int(answer.referencesStart)..<Int(answer.referencesStart + answer.referencesCount)] {
            joined.append(contentsOf: own[position..<Int(reference.at)])
            joined.append(contentsOf: UnsafeBufferPointer(start: reference.start, count: Int(reference.count)))
            position = Int(reference.at)
        }
        joined.append(contentsOf: own[position...])
        return joined
    }

    public func remember(event id: String, records: [UInt8]) {
        answers[id] = Answer(own: arena.append(records), referencesStart: 0, referencesCount: 0)
    }

    public func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        if !records.references.isEmpty && storages.last !== storage { storages.append(storage) }
        let start = UInt32(references.count)
        for reference in records.references {
            references.append(Reference(start: reference.start, at: UInt32(reference.at), count: UInt32(reference.count)))
        }
        answers[id] = Answer(own: arena.append(records.bytes), referencesStart: start, referencesCount: UInt32(records.references.count))
    }

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

    public func close() {
        arena.stop()
    }

    deinit {
        arena.stop()
    }
}

/// Append-only bytes in 2 MiB chunks that are never moved or freed before the arena is.
///
/// The answer log keeps an event's own record bytes (heads, short tails; about 450 bytes an event
/// on the museum trace, where whole replies are about 700), for as long as the server runs. Kept as
/// one array per event, that growth went through malloc a page at a time (an `mprotect` and a
/// page fault every few events, a third of the server's time on this VM); chunks asked for
/// transparent huge pages fault in 2 MiB at a time. And the kernel zeroes each new page when it is
/// first touched, which stalled the event loop for milliseconds a few times a second (the p99 at
/// 20,000 events/s went from 2.4 ms without the log to 6 ms with it): a thread of its own touches
/// the next chunks before they are needed.
struct ByteArena: ~Copyable {
    struct Slot {
        var chunk: UInt32
        var offset: UInt32
        var count: UInt32
    }

    static let chunkSize = 2 << 20
    private var chunks: [UnsafeMutableRawPointer] = []
    private var used = ByteArena.chunkSize
    private let supplier = ChunkSupplier()

    /// Stops the thread that prepares chunks.
    func stop() {
        supplier.stop()
    }

    mutating func append(_ bytes: [UInt8]) -> Slot {
        // An event that fired nothing (there may be no chunk yet).
        if bytes.isEmpty { return Slot(chunk: 0, offset: 0, count: 0) }
        if bytes.count > Self.chunkSize - used {
            // A record set larger than a chunk gets a chunk of its own size.
            chunks.append(bytes.count > Self.chunkSize ? Self.allocate(bytes.count) : supplier.take())
            used = bytes.count > Self.chunkSize ? Self.chunkSize : 0
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
        if slot.count == 0 { return [] }
        return Array(UnsafeRawBufferPointer(start: chunks[Int(slot.chunk)] + Int(slot.offset), count: Int(slot.count)))
    }

    static func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, chunkSize, size) == 0, let pointer else { fatalError("out of memory for the answer log") }
        _ = madvise(pointer, size, MADV_HUGEPAGE)
        return pointer
    }

    deinit {
        for chunk in chunks { free(chunk) }
    }
}

/// Prepares `ByteArena` chunks on a thread of its own: allocated and with every page touched, so
/// that the kernel's zeroing of fresh memory happens there and not on the event loop.
///
/// `@unchecked Sendable`: `ready` and `stopped` are read and written only while holding `condition`.
final class ChunkSupplier: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [UnsafeMutableRawPointer] = []
    private var stopped = false
    /// Chunks kept ready: 4 MiB, over 5,000 answers.
    private static let depth = 2

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "beaconrules-arena"
        thread.start()
    }

    /// A prepared chunk, or (when the thread has not kept up) a fresh one.
    func take() -> UnsafeMutableRawPointer {
        condition.lock()
        let chunk = ready.isEmpty ? nil : ready.removeFirst()
        condition.signal()
        condition.unlock()
        return chunk ?? ByteArena.allocate(ByteArena.chunkSize)
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while ready.count >= Self.depth && !stopped { condition.wait() }
            if stopped {
                let left = ready
                ready = []
                condition.unlock()
                for chunk in left { free(chunk) }
                return
            }
            condition.unlock()
            let chunk = ByteArena.allocate(ByteArena.chunkSize)
            // One write per 4 KiB page faults it in (a huge page takes the first write).
            var offset = 0
            while offset < ByteArena.chunkSize {
                chunk.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
                offset += 4096
            }
            condition.lock()
            ready.append(chunk)
            condition.unlock()
        }
    }
}
