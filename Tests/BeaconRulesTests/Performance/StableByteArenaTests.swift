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
}
