@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `FiringList`: the engine's list of an event's firings, in memory of its own, a value as an
/// array is.
@Suite("FiringList: an event's firings without array bookkeeping")
struct FiringListTests {
    private func firing(_ n: Int, fireDate: Int64 = 0, rank: Int32 = 0, idSlot: Int32? = nil, isSilent: Bool = false) -> Firing {
        Firing(fireDate: fireDate, rank: rank, index: Int32(n), idSlot: idSlot ?? Int32(n), isSilent: isSilent, keepsState: n % 2 == 0)
    }

    private func indices(_ list: FiringList) -> [Int32] { (0..<list.count).map { list[$0].index } }

    /// Appends past its first capacity keep every firing in order; `removeAll` empties it and
    /// it is reused.
    @Test func appendsGrowsAndEmpties() {
        var list = FiringList(capacity: 2)
        #expect(list.isEmpty)
        for n in 0..<40 { list.append(firing(n)) }
        #expect(list.count == 40)
        #expect(indices(list) == (0..<40).map(Int32.init))
        list.removeAll()
        #expect(list.isEmpty)
        list.append(firing(7))
        #expect(indices(list) == [7])
    }

    /// `contains(idSlot:)`, `hasNotification` and `setTail` read and write what was appended.
    @Test func findsAndMarks() {
        var list = FiringList()
        list.append(firing(1, idSlot: 10, isSilent: true))
        #expect(!list.hasNotification)
        list.append(firing(2, idSlot: 20))
        #expect(list.hasNotification)
        #expect(list.contains(idSlot: 10) && list.contains(idSlot: 20) && !list.contains(idSlot: 30))
        let tail = StableByteArena.Reference(chunk: 1, offset: 2, length: 3)
        list.setTail(tail, at: 1)
        #expect(list[1].tail == tail)
        #expect(list[0].tail == nil)
    }

    /// `sort` orders by fire date, then rank, then campaign index, as sorting an array does.
    @Test func sortsAsAnArraySorts() {
        var generator = SeededRandom(seed: 32)
        for _ in 0..<200 {
            var list = FiringList(capacity: 1)
            var model: [Firing] = []
            for n in 0..<Int.random(in: 0..<12, using: &generator) {
                let f = firing(n, fireDate: Int64.random(in: 0..<3, using: &generator), rank: Int32.random(in: 0..<3, using: &generator))
                list.append(f)
                model.append(f)
            }
            list.sort()
            model.sort { ($0.fireDate, $0.rank, $0.index) < ($1.fireDate, $1.rank, $1.index) }
            #expect(indices(list) == model.map(\.index))
        }
    }

    /// A copy (an engine copied) keeps what it held when the original lists the next event's
    /// firings, and the other way round.
    @Test func copiesAreValues() {
        var original = FiringList()
        original.append(firing(1))
        original.append(firing(2))
        var copy = original
        original.removeAll()
        original.append(firing(3))
        #expect(indices(copy) == [1, 2])
        #expect(indices(original) == [3])
        copy.removeAll()
        copy.append(firing(4))
        #expect(indices(original) == [3])
        #expect(indices(copy) == [4])
    }
}
