import BeaconRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `replay --jobs N`'s writer, on a thread of its own: takes each block's plan and the shards'
/// blocks in input order and writes every line's records to stdout as `--jobs 1` would have,
/// byte for byte (the runs of all shards handed to `writev` in line order, tails by reference),
/// and every error and warning to stderr in line order.
struct OrderedRecordWriter {
    let plans: BoundedQueue<BlockPlan>
    let shards: [ReplayShard]
    private var progress = ProgressBar(totalBytes: nil)
    private var vectors: UnsafeMutableBufferPointer<iovec>
    private var vectorCount = 0
    private var failed = false
    var rejectedLines = 0

    init(plans: BoundedQueue<BlockPlan>, shards: [ReplayShard]) {
        self.plans = plans
        self.shards = shards
        vectors = .allocate(capacity: OutputSink.vectorLimit)
        blocks = Array(repeating: ShardBlock(records: JSONWriter()), count: shards.count)
        cursors = .allocate(capacity: shards.count)
        cursors.initialize(repeating: Cursor(), count: shards.count)
    }

    /// The block of each shard for the plan being written (empty for a shard with no lines in it),
    /// and where the writer stands in it.
    private var blocks: [ShardBlock]
    /// Per shard, where the writer stands in its block and where that block's arrays are.
    private let cursors: UnsafeMutablePointer<Cursor>

    /// Writes until the plans end; false: stdout was closed (the queues are closed then, so
    /// that the reader and the shards stop).
    mutating func run() -> Bool {
        defer {
            vectors.deallocate()
            cursors.deallocate()
        }
        var errors = ""
        while let plan = plans.pop() {
            if let size = plan.newSource {
                progress.clear()
                progress = ProgressBar(totalBytes: size)
            }
            for s in shards.indices where plan.shards & (1 << UInt64(s)) != 0 {
                guard let block = shards[s].blocks.pop() else { return stop() }
                blocks[s] = block
                cursors[s] = Cursor(blocks[s])
                rejectedLines += block.rejectedLines
            }
            var readerMessage = 0
            for owner in plan.owners {
                if owner == BlockPlan.readerLine {
                    errors += plan.messages[readerMessage]
                    readerMessage += 1
                    continue
                }
                let s = Int(owner)
                while cursors[s].message < cursors[s].messages && blocks[s].messages[cursors[s].message].line == cursors[s].line {
                    errors += blocks[s].messages[cursors[s].message].text
                    cursors[s].message += 1
                }
                appendLine(ofShard: s)
            }
            rejectedLines += plan.messages.count
            if !errors.isEmpty {
                progress.clear()
                StandardError.write(errors)
                errors = ""
            }
            guard flush() else { return stop() }
            for s in shards.indices where plan.shards & (1 << UInt64(s)) != 0 {
                shards[s].spareWriters.offer(blocks[s].records)
                blocks[s] = ShardBlock(records: JSONWriter())
            }
            plan.mapping?.applied(upTo: plan.mappedEnd)
            progress.update(bytes: plan.bytesRead, lines: plan.lineNumber)
        }
        progress.clear()
        return true
    }

    /// Where the writer stands in a shard's block: its next line, byte, reference and message;
    /// and the block's arrays, which stay in `blocks` unchanged until the plan's runs are written
    /// (`flush`), so that their storage does not move.
    struct Cursor {
        var line = 0
        var byte = 0
        var reference = 0
        var message = 0
        var messages = 0
        var own: UnsafePointer<UInt8>?
        var references: UnsafePointer<JSONWriter.Reference>?
        var ends: UnsafePointer<ShardBlock.LineEnd>?

        init() {}

        init(_ block: ShardBlock) {
            own = block.records.bytes.withUnsafeBufferPointer { $0.baseAddress }
            references = block.records.references.withUnsafeBufferPointer { $0.baseAddress }
            ends = block.ends.withUnsafeBufferPointer { $0.baseAddress }
            messages = block.messages.count
        }
    }

    /// The runs of the next line of shard `s`'s block: its own bytes cut at each of its
    /// references (the shard's tails, which never move).
    private mutating func appendLine(ofShard s: Int) {
        let cursor = cursors + s
        let end = cursor.pointee.ends![cursor.pointee.line]
        cursor.pointee.line += 1
        while cursor.pointee.reference < end.reference {
            let reference = cursor.pointee.references![cursor.pointee.reference]
            if reference.at > cursor.pointee.byte { append(cursor.pointee.own! + cursor.pointee.byte, reference.at - cursor.pointee.byte) }
            append(reference.start, reference.count)
            cursor.pointee.byte = reference.at
            cursor.pointee.reference += 1
        }
        if end.byte > cursor.pointee.byte { append(cursor.pointee.own! + cursor.pointee.byte, end.byte - cursor.pointee.byte) }
        cursor.pointee.byte = end.byte
    }

    /// One run for `writev`, joined to the one before when it follows it in memory.
    private mutating func append(_ start: UnsafePointer<UInt8>, _ count: Int) {
        let base = UnsafeMutableRawPointer(mutating: start)
        if vectorCount > 0, vectors[vectorCount - 1].iov_base + vectors[vectorCount - 1].iov_len == base {
            vectors[vectorCount - 1].iov_len += count
            return
        }
        if vectorCount == vectors.count, !flush() { failed = true }
        vectors[vectorCount] = iovec(iov_base: base, iov_len: count)
        vectorCount += 1
    }

    /// Writes the runs gathered so far.
    private mutating func flush() -> Bool {
        defer { vectorCount = 0 }
        if failed { return false }
        if vectorCount > 0 && !OutputSink(fd: 1).writeAll(UnsafeMutableBufferPointer(rebasing: vectors[..<vectorCount])) {
            failed = true
        }
        return !failed
    }

    /// Stdout was closed: every queue closed, so that no thread waits for the writer.
    private mutating func stop() -> Bool {
        plans.close()
        for shard in shards {
            shard.work.close()
            shard.blocks.close()
        }
        progress.clear()
        return false
    }
}
