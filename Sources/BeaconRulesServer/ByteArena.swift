#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Append-only bytes in 2 MiB chunks that are never moved; the oldest chunks are freed when the
/// answers in them are forgotten (`release(before:)`, the answer retention).
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
    /// Chunks from number `firstChunk` on (a slot names its chunk by number).
    private var chunks: [UnsafeMutableRawPointer] = []
    private var firstChunk = 0
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
                return Slot(chunk: UInt32(currentChunk), offset: 0, count: UInt32(bytes.count))
            }
        }
        let slot = Slot(chunk: UInt32(currentChunk), offset: UInt32(used), count: UInt32(bytes.count))
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { (chunks[chunks.count - 1] + used).copyMemory(from: base, byteCount: raw.count) }
        }
        used += bytes.count
        return slot
    }

    func bytes(_ slot: Slot) -> [UInt8] {
        if slot.count == 0 { return [] }
        return Array(UnsafeRawBufferPointer(start: chunks[Int(slot.chunk) - firstChunk] + Int(slot.offset), count: Int(slot.count)))
    }

    /// The number of the chunk being filled (the next slot's, unless it does not fit).
    var currentChunk: Int { firstChunk + chunks.count - 1 }

    /// Frees the chunks numbered below `chunk` (never the one being filled): no slot in them is
    /// read again.
    mutating func release(before chunk: Int) {
        let count = min(chunk, currentChunk) - firstChunk
        if count <= 0 { return }
        for pointer in chunks[..<count] { free(pointer) }
        chunks.removeFirst(count)
        firstChunk += count
    }

    /// Bytes held in chunks.
    var bytesHeld: Int { chunks.count * Self.chunkSize }

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
