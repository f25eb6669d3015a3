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

    /// Plain elements (no references): a copy shares the chunks, and a change copies only the
    /// chunk it changes, in whichever copy changes first; the others stay where they are, shared.
    @Test func copiesOfPlainElementsShareTheChunksTheyDoNotChange() {
        var a = ChunkedArray<Int>(shift: 2)
        for n in 0..<18 { a.append(n) }
        var b = a
        b[5] = -1
        // Chunk 1 (elements 4 to 7) is copied; chunks 0, 2, 3 and 4 are still shared.
        for i in [4, 5, 7] { #expect(b.unsafePointer(at: i) != a.unsafePointer(at: i)) }
        for i in [0, 8, 12, 16] { #expect(b.unsafePointer(at: i) == a.unsafePointer(at: i)) }
        // The last chunk is half full: an append writes into it, so it is copied first.
        b.append(18)
        #expect(b.unsafePointer(at: 16) != a.unsafePointer(at: 16))
        #expect(Array(a) == Array(0..<18))
        #expect(Array(b) == (0..<19).map { $0 == 5 ? -1 : $0 })
        // The original, changed after the copy, copies its own chunk too; the copy keeps its value.
        a.swapAt(0, 9)
        #expect(Array(b.prefix(10)) == [0, 1, 2, 3, 4, -1, 6, 7, 8, 9])
        #expect(a[0] == 9 && a[9] == 0)
        #expect(b.unsafePointer(at: 12) == a.unsafePointer(at: 12))
    }

    /// Copies of plain elements taken at random moments, while the original goes on changing
    /// (appends across chunk edges, writes, swaps, runs appended, removals that free chunks), each
    /// hold what an array copied at the same moment holds; and so does the original.
    @Test(arguments: [1, 3, 6])
    func copiesTakenWhileTheOriginalChangesKeepTheirValues(shift: Int) {
        var live = ChunkedArray<Int>(shift: shift)
        var model: [Int] = []
        var copies: [(ChunkedArray<Int>, [Int])] = []
        var generator = SeededRandom(seed: UInt64(100 + shift))
        for step in 0..<6_000 {
            switch Int.random(in: 0..<20, using: &generator) {
            case 0..<8:
                live.append(step)
                model.append(step)
            case 8..<11 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &generator)
                live[i] = -step
                model[i] = -step
            case 11 where model.count > 1:
                let i = Int.random(in: 0..<model.count, using: &generator)
                let j = Int.random(in: 0..<model.count, using: &generator)
                live.swapAt(i, j)
                model.swapAt(i, j)
            case 12:
                live.append(repeating: step, count: 5)
                model.append(contentsOf: repeatElement(step, count: 5))
            case 13..<16 where !model.isEmpty:
                #expect(live.removeLast() == model.removeLast())
            case 16:
                copies.append((live, model))
            case 17 where !copies.isEmpty:
                copies.remove(at: Int.random(in: 0..<copies.count, using: &generator))
            case 18 where !copies.isEmpty:
                // A copy changed in its turn.
                let k = Int.random(in: 0..<copies.count, using: &generator)
                copies[k].0.append(step)
                copies[k].1.append(step)
            default:
                break
            }
        }
        #expect(Array(live) == model)
        for (copy, expected) in copies { #expect(Array(copy) == expected) }
    }
}
