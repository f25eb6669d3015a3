/// Append-only byte storage whose bytes never move: what it hands out stays valid as long as the
/// arena lives, so a `JSONWriter` that collects references (see `JSONWriter.appendStable`) can
/// point into it instead of copying.
///
/// Bytes live in chunks of 4 MiB (a larger run gets a chunk of its own); nothing is freed before
/// the arena is. Copies of the owning engine share one arena (append-only, one owner thread).
/// It may also refer to another arena's bytes (`adopt`): engines that share tails (`SharedTails`).
///
/// `@unchecked Sendable`: the engine that owns it is sent to its owner thread (or event loop) and
/// used only there; `store` and `withChunks` run on that one thread, never concurrently. What
/// other threads may read are the bytes behind `JSONWriter.Reference`s, which are never written
/// again once stored (see there).
final class StableByteArena: @unchecked Sendable {
    /// Where stored bytes are: the chunk (in store order), the offset in it, the length. Each
    /// part fits 32 bits, checked where a reference is made (`store`).
    struct Reference: Sendable, Equatable {
        var chunk: UInt32
        var offset: UInt32
        var length: UInt32
    }

    private static let chunkSize = 1 << 22
    /// Unchecked exclusivity: only `store` changes it, and never while `withChunks` reads it (one
    /// owner thread, no reentry); the check cost a twentieth of an event's join.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    /// The chunk being filled (the last one stored into), bytes used of it, and bytes left in it.
    private var current = -1
    private var used = 0
    private var room = 0
    /// The chunks that are another arena's bytes (`adopt`): read here, freed there.
    private var adopted: Set<Int> = []

    /// Copies `bytes` in and returns where they now are for good.
    func store(_ bytes: UnsafeBufferPointer<UInt8>) -> Reference {
        let count = bytes.count
        if count > room || current < 0 {
            let size = max(Self.chunkSize, count)
            precondition(size <= Int(UInt32.max) && chunks.count < Int(UInt32.max), "StableByteArena: a reference's chunk, offset and length are 32 bits each")
            chunks.append(UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16))
            current = chunks.count - 1
            used = 0
            room = size
        }
        let chunk = current
        if count > 0 { (chunks[chunk] + used).copyMemory(from: bytes.baseAddress!, byteCount: count) }
        let reference = Reference(chunk: UInt32(chunk), offset: UInt32(used), length: UInt32(count))
        used += count
        room -= count
        return reference
    }

    /// Refers to `bytes`, stored for good in another arena that outlives this one (`SharedTails`
    /// keeps it), without copying them: they become a chunk of their own here, never stored
    /// into and not freed by this arena.
    func adopt(_ bytes: UnsafeBufferPointer<UInt8>) -> Reference {
        precondition(chunks.count < Int(UInt32.max) && bytes.count <= Int(UInt32.max), "StableByteArena: a reference's chunk, offset and length are 32 bits each")
        adopted.insert(chunks.count)
        chunks.append(UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
        return Reference(chunk: UInt32(chunks.count - 1), offset: 0, length: UInt32(bytes.count))
    }

    /// `body` with the arena's chunks read once, to resolve many references (the records of an event).
    @inline(__always)
    func withChunks<R>(_ body: (Chunks) throws -> R) rethrows -> R {
        try chunks.withUnsafeBufferPointer { try body(Chunks(bases: $0)) }
    }

    /// The arena's chunks, valid within `withChunks`.
    struct Chunks {
        let bases: UnsafeBufferPointer<UnsafeMutableRawPointer>

        /// The bytes `reference` names.
        @inline(__always)
        func bytes(_ reference: Reference) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: (bases[Int(reference.chunk)] + Int(reference.offset)).assumingMemoryBound(to: UInt8.self), count: Int(reference.length))
        }
    }

    deinit {
        for (n, chunk) in chunks.enumerated() where !adopted.contains(n) { chunk.deallocate() }
    }
}
