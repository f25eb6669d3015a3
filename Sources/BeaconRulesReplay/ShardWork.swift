import BeaconRules

/// A shard's part of a block of input lines, as the reader hands it over: for each line its number
/// and place, or the input the reader already parsed. The lines of a mapped file are read where
/// they lie (`mapping`: no copy); those of a pipe are copied back to back into `bytes`.
struct ShardWork: Sendable {
    var source = "stdin"
    /// The file the lines are in, when it is mapped; nil: they are in `bytes`.
    var mapping: MappedInput?
    var bytes = LineBytes()
    var lines: [Line] = []
    /// Lines the reader parsed in general to route them (not in the usual layout).
    var inputs: [(input: InputLine, identified: Bool)] = []

    struct Line: Sendable {
        var number: Int
        /// Where the line's bytes are in `mapping` or else in `bytes`; `input` ≥ 0: parsed, at
        /// that index of `inputs`.
        var start: Int
        var count: Int
        var input: Int
    }

    mutating func removeAll() {
        bytes.removeAll()
        mapping = nil
        lines.removeAll(keepingCapacity: true)
        inputs.removeAll(keepingCapacity: true)
    }
}

/// The bytes of a block's lines for one shard, back to back: appended by the reader, then read
/// by the shard, then emptied and handed back for reuse.
///
/// `@unchecked Sendable`: it has one user at a time. The reader appends to it, then pushes its
/// `ShardWork` into the shard's queue and never touches it again; the shard reads it, empties it
/// and offers it back through another queue. The queues' lock orders each hand-over.
final class LineBytes: @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// Appends `line`, growing as needed (lines are at most 16 MiB).
    func append(_ line: UnsafeBufferPointer<UInt8>) {
        if count + line.count > capacity {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + line.count))
            larger.update(from: base, count: count)
            base.deallocate()
            base = larger
            capacity = max(capacity * 2, count + line.count)
        }
        if let start = line.baseAddress { (base + count).update(from: start, count: line.count) }
        count += line.count
    }

    func line(at start: Int, count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: count)
    }

    /// Where the bytes start (valid until the next `append`).
    var start: UnsafePointer<UInt8> { UnsafePointer(base) }

    func removeAll() { count = 0 }
}
