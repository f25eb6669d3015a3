@testable import BeaconRules
import Testing

/// `StableByteArena`: bytes stored are found again by their reference (chunk, offset, length),
/// and stay where they were as later runs fill chunks and start new ones.
@Suite("Bytes that never move")
struct StableByteArenaTests {
    @Test func everyReferenceGivesBackItsBytesAcrossChunks() {
        let arena = StableByteArena()
        var stored: [(StableByteArena.Reference, [UInt8], UnsafePointer<UInt8>?)] = []
        // 3,000-byte runs fill the first 4 MiB chunk and spill into a second; a 5 MiB run gets a
        // chunk of its own; an empty run is a reference too.
        let runs: [[UInt8]] = (0..<1_500).map { i in [UInt8](repeating: UInt8(i % 251), count: 3_000) }
            + [[UInt8](repeating: 7, count: 5 << 20), [], [1, 2, 3]]
        for run in runs {
            let reference = run.withUnsafeBufferPointer { arena.store($0) }
            let start = arena.withChunks { $0.bytes(reference).baseAddress }
            stored.append((reference, run, start))
        }
        #expect(Set(stored.map(\.0.chunk)).count == 4)
        arena.withChunks { chunks in
            for (reference, run, start) in stored {
                #expect(Int(reference.length) == run.count)
                #expect(Array(chunks.bytes(reference)) == run)
                #expect(chunks.bytes(reference).baseAddress == start)
            }
        }
    }

    /// An arena that adopts another's bytes reads them where they are, stores its own after
    /// them in chunks of its own, and frees only those: the bytes stay the other arena's.
    @Test func adoptedBytesAreReadWhereTheyAreAndNotFreed() {
        let owner = StableByteArena()
        let run: [UInt8] = Array("a tail rendered by another engine".utf8)
        let stored = run.withUnsafeBufferPointer { owner.store($0) }
        let original = owner.withChunks { $0.bytes(stored) }
        do {
            let other = StableByteArena()
            let before: [UInt8] = [1, 2, 3]
            let own = before.withUnsafeBufferPointer { other.store($0) }
            let adopted = other.adopt(original)
            let after: [UInt8] = [4, 5]
            let later = after.withUnsafeBufferPointer { other.store($0) }
            other.withChunks { chunks in
                #expect(chunks.bytes(adopted).baseAddress == original.baseAddress)
                #expect(Array(chunks.bytes(adopted)) == run)
                #expect(Array(chunks.bytes(own)) == before)
                #expect(Array(chunks.bytes(later)) == after)
            }
            #expect(later.chunk == own.chunk && later.offset == 3, "stored after the adopted run, in its own chunk")
        }
        owner.withChunks { #expect(Array($0.bytes(stored)) == run) }
    }
}
