/// Append-only byte storage whose bytes never move: what it hands out stays valid as long as the
/// arena lives, so a `JSONWriter` that collects references (see `JSONWriter.appendStable`) can
/// point into it instead of copying.
///
/// Bytes live in chunks of 4 MiB (a larger run gets a chunk of its own); nothing is freed before
/// the arena is. Copies of the owning engine share one arena (append-only, one owner thread).
/// An arena may start with other, finished arenas' chunks (`init(extending:)`): those are read by
/// every engine that extends them and stored into by none.
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
    /// Bytes used of the last chunk, and bytes left in it.
    private var used = 0
    private var room = 0
    /// Arenas whose chunks come first (`init(extending:)`): kept alive, never stored into, not freed here.
    private let bases: [StableByteArena]
    /// The chunks before this one are the bases'.
    private let firstOwned: Int

    init() {
        bases = []
        firstOwned = 0
    }

    /// An arena whose first chunks are `bases`' chunks, in order, so that their references hold
    /// in it too (`SharedTails`); what is stored here goes to chunks of its own. The bases must
    /// not be stored into again.
    init(extending bases: [StableByteArena]) {
        var inherited: [UnsafeMutableRawPointer] = []
        for base in bases { base.withChunks { inherited.append(contentsOf: $0.bases) } }
        self.bases = bases
        firstOwned = inherited.count
        chunks = inherited
    }

    /// Chunks so far, the bases' included.
    var chunkCount: Int { chunks.count }

    /// Copies `bytes` in and returns where they now are for good.
    func store(_ bytes: UnsafeBufferPointer<UInt8>) -> Reference {
        let count = bytes.count
        if count > room || chunks.count == firstOwned {
            let size = max(Self.chunkSize, count)
            precondition(size <= Int(UInt32.max) && chunks.count < Int(UInt32.max), "StableByteArena: a reference's chunk, offset and length are 32 bits each")
            chunks.append(UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16))
            used = 0
            room = size
        }
        let chunk = chunks.count - 1
        if count > 0 { (chunks[chunk] + used).copyMemory(from: bytes.baseAddress!, byteCount: count) }
        let reference = Reference(chunk: UInt32(chunk), offset: UInt32(used), length: UInt32(count))
        used += count
        room -= count
        return reference
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
        for chunk in chunks[firstOwned...] { chunk.deallocate() }
    }
}
