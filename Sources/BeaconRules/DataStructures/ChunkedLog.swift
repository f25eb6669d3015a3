/// An append-only list kept in chunks of fixed capacity: appending never moves what is already
/// there. One growing array copies everything at each doubling and faults in fresh pages for the
/// copy; the delivery ledger appends a 24-byte delivery per record, tens of megabytes in a long
/// replay, and that copying was a twentieth of replay's time.
struct ChunkedLog<Element>: Sequence {
    private var chunks: [[Element]] = []
    private let chunkCapacity: Int
    private(set) var count = 0

    init(chunkCapacity: Int) {
        self.chunkCapacity = chunkCapacity
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ element: Element) {
        if chunks.isEmpty || chunks[chunks.count - 1].count == chunkCapacity { addChunk() }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    private mutating func addChunk() {
        var chunk: [Element] = []
        chunk.reserveCapacity(chunkCapacity)
        chunks.append(chunk)
    }

    /// Empties the log; the first chunk keeps its room (a log drained often never allocates again).
    mutating func removeAll() {
        if chunks.count > 1 { chunks.removeLast(chunks.count - 1) }
        if !chunks.isEmpty { chunks[0].removeAll(keepingCapacity: true) }
        count = 0
    }

    func makeIterator() -> FlattenSequence<[[Element]]>.Iterator {
        chunks.joined().makeIterator()
    }
}

extension ChunkedLog: Sendable where Element: Sendable {}
