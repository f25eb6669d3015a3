@testable import BeaconRulesServer
import BenchmarkWorkload
import Testing

@Suite("SegmentedQueue: a FIFO that grows a block at a time")
struct SegmentedQueueTests {
    /// Random appends and removals (single and in runs, across block edges, down to empty and up
    /// again) leave the queue holding what an array used as a queue holds, element for element.
    @Test(arguments: [1, 3, 4, 7, 64])
    func holdsWhatAnArrayHolds(blockSize: Int) {
        var queue = SegmentedQueue<Int>(blockSize: blockSize)
        var model: [Int] = []
        // Seeded, so that a failing step is the same step on the next run.
        var generator = SeededRandom(seed: UInt64(blockSize))
        var next = 0
        for step in 0..<5_000 {
            let choice = Int.random(in: 0..<10, using: &generator)
            if choice < 6 || model.isEmpty {
                for _ in 0..<Int.random(in: 1...9, using: &generator) {
                    queue.append(next)
                    model.append(next)
                    next += 1
                }
            } else if choice < 8 {
                queue.removeFirst()
                model.removeFirst()
            } else {
                let k = Int.random(in: 0...model.count, using: &generator)
                queue.removeFirst(k)
                model.removeFirst(k)
            }
            #expect(queue.count == model.count, "step \(step)")
            #expect(queue.first == model.first, "step \(step)")
            #expect(queue.isEmpty == model.isEmpty)
            if !model.isEmpty {
                let offset = Int.random(in: 0..<model.count, using: &generator)
                #expect(queue[offset] == model[offset], "step \(step), offset \(offset)")
                #expect(queue[model.count - 1] == model.last)
            }
        }
        let all = (0..<queue.count).map { queue[$0] }
        #expect(all == model)
    }

    /// A queue emptied and filled again many times over keeps answering from the front (the
    /// spent blocks are dropped, not kept in front of the live ones).
    @Test func emptiedAndRefilledManyTimes() {
        var queue = SegmentedQueue<String>(blockSize: 4)
        for round in 0..<300 {
            for i in 0..<10 { queue.append("r\(round)-\(i)") }
            queue.removeFirst(6)
            #expect(queue.first == "r\(round)-6")
            #expect(queue[3] == "r\(round)-9")
            queue.removeFirst(4)
            #expect(queue.isEmpty)
        }
        for i in 0..<1_000 { queue.append("k\(i)") }
        queue.removeFirst(999)
        #expect(queue.first == "k999")
        #expect(queue.count == 1)
    }
}
