@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `ChunkedArray`: an array in chunks that never moves its elements as it grows, and a value as
/// `Array` is.
@Suite("ChunkedArray: an array that grows a chunk at a time")
struct ChunkedArrayTests {
    /// Random appends, writes and removals from the end, across chunk edges and down to empty,
    /// leave it holding what an array holds, element for element (strings: elements that are
    /// reference counted are kept and freed as an array's are).
    @Test(arguments: [1, 2, 5])
    func holdsWhatAnArrayHolds(shift: Int) {
        var chunked = ChunkedArray<String>(shift: shift)
        var model: [String] = []
        var generator = SeededRandom(seed: UInt64(shift))
        for step in 0..<4_000 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                chunked.append("s\(step)")
                model.append("s\(step)")
            case 5..<7 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &generator)
                chunked[i] = "w\(step)"
                model[i] = "w\(step)"
            case 7..<9 where !model.isEmpty:
                #expect(chunked.removeLast() == model.removeLast())
            default:
                #expect(Array(chunked) == model)
            }
            #expect(chunked.count == model.count)
        }
        #expect(Array(chunked) == model)
        for i in model.indices {
            #expect(chunked.unsafePointer(at: i).pointee == model[i])
            #expect(chunked.withReader { $0.pointer(at: i).pointee } == model[i])
        }
    }

    /// A copy keeps what it held when the original changes, and the other way round.
    @Test func copiesAreValues() {
        var a = ChunkedArray<String>(shift: 2)
        for n in 0..<10 { a.append("a\(n)") }
        var b = a
        a[3] = "changed"
        a.append("more")
        b.removeLast()
        #expect(Array(a) == (0..<10).map { $0 == 3 ? "changed" : "a\($0)" } + ["more"])
        #expect(Array(b) == (0..<9).map { "a\($0)" })
        var c = b
        c.releaseChunk(0)
        #expect(c[5] == "a5")
        #expect(Array(b) == (0..<9).map { "a\($0)" })
    }
}
