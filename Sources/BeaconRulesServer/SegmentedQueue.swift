/// A first-in first-out queue kept in blocks of a fixed size, so that growing it never moves what
/// it holds: an array or ring buffer that doubles copies every element at once, and for the
/// in-memory answer log (one element per answer, hundreds of thousands) that copy stalled the
/// engine for 15-30 ms at 131,072 and 262,144 answers, the p99 of a whole benchmark phase. Here an
/// append takes a new block of `blockSize` when the last is full, and `removeFirst` frees a block
/// once all of it is gone; only the small list of blocks ever grows by copying (one reference
/// per block).
struct SegmentedQueue<Element> {
    /// One block's elements; a class so that appending to the last block does not copy it.
    private final class Block {
        var elements: ContiguousArray<Element>
        init(capacity: Int) {
            elements = []
            elements.reserveCapacity(capacity)
        }
    }

    /// Elements per block.
    let blockSize: Int
    private var blocks: ContiguousArray<Block> = []
    /// The first live block in `blocks` (blocks before it are spent: their elements freed at
    /// once, the empty blocks dropped from the list in batches).
    private var firstBlock = 0
    /// The first live element in `blocks[firstBlock]`.
    private var head = 0
    /// Elements held.
    private(set) var count = 0

    init(blockSize: Int = 4_096) {
        precondition(blockSize > 0, "a block holds at least one element")
        self.blockSize = blockSize
    }

    var isEmpty: Bool { count == 0 }

    /// The oldest element, nil when empty.
    var first: Element? { count == 0 ? nil : blocks[firstBlock].elements[head] }

    /// The element `offset` places after the oldest (0: `first`).
    subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "offset \(offset) outside a queue of \(count)")
        let position = head + offset
        return blocks[firstBlock + position / blockSize].elements[position % blockSize]
    }

    mutating func append(_ element: Element) {
        if blocks.count == firstBlock || blocks[blocks.count - 1].elements.count == blockSize {
            blocks.append(Block(capacity: blockSize))
        }
        blocks[blocks.count - 1].elements.append(element)
        count += 1
    }

    /// Drops the oldest element.
    mutating func removeFirst() {
        removeFirst(1)
    }

    /// Drops the `k` oldest elements.
    mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "removing \(k) of \(count)")
        guard k > 0 else { return }
        count -= k
        head += k
        // Every block but the last is full: a head past one block's end is in the next.
        while head >= blockSize {
            blocks[firstBlock].elements = []
            head -= blockSize
            firstBlock += 1
        }
        if count == 0 {
            blocks.removeAll(keepingCapacity: true)
            firstBlock = 0
            head = 0
        } else if firstBlock >= 64 && firstBlock * 2 >= blocks.count {
            blocks.removeFirst(firstBlock)
            firstBlock = 0
        }
    }
}
