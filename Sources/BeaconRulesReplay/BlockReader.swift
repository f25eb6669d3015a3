import BeaconRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The reading side of `ShardedReplay`: lines in, blocks out to the shards and plans to the writer.
struct BlockReader {
    let router: DeviceRouter
    let shards: [ReplayShard]
    let plans: BoundedQueue<BlockPlan>
    private var plan = BlockPlan()
    private var work: [ShardWork]
    private var bytesInBlock = 0
    private var source = "stdin"
    /// The source being read, when it is mapped: the shards read their lines in it.
    private var mapping: MappedInput?
    /// Where its bytes start (read per line: no reference counted).
    private var mappedBase: UnsafePointer<UInt8>?
    /// False once the writer has stopped (stdout closed): reading stops too.
    private var reading = true
    /// Where the first sighting is (the index of its source and its line number), when every
    /// source up to it can be read again: the shards stop there and one engine replays the
    /// input from the start, writing from that line on (`Replay.runOnMain`, then `OneEngineReplay`).
    private(set) var oneJobFrom: (source: Int, line: Int)?
    /// Whether every source so far is a regular file (stdin included), which can be read again.
    private var rereadable = true
    private var sourceIndex = 0

    init(router: DeviceRouter, shards: [ReplayShard], plans: BoundedQueue<BlockPlan>) {
        self.router = router
        self.shards = shards
        self.plans = plans
        // One each: a `ShardWork` holds its bytes by reference.
        work = shards.map { _ in ShardWork() }
    }

    /// Reads every source in order; the failure that stopped it, if any.
    mutating func read(_ sources: [String]) -> String? {
        for (index, path) in sources.enumerated() {
            sourceIndex = index
            source = path == "-" ? "stdin" : path
            let fd = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return "\(path): cannot open: \(String(cString: strerror(errno)))" }
            defer { if fd != 0 { close(fd) } }
            var size: Int?
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { size = Int(info.st_size) }
            if size == nil { rereadable = false }
            plan.newSource = .some(size)
            var lines = LineReader(fd: fd)
            lines.releasesOnlyApplied = true
            mapping = lines.mapping
            mappedBase = mapping?.bytes.baseAddress
            for s in work.indices {
                work[s].source = source
                work[s].mapping = mapping
            }
            var readError: ReadError?
            while reading && oneJobFrom == nil {
                let line: UnsafeBufferPointer<UInt8>
                do throws(ReadError) {
                    guard let next = try lines.nextLine() else { break }
                    line = next
                } catch {
                    readError = error
                    break
                }
                let number = lines.lineNumber
                if lines.lineWasTooLong {
                    refuse(LineIntake.tooLongMessage(limit: LineReader.longestLine), line: number)
                } else if EventParser.isBlank(line) {
                    continue
                } else if let s = router.usualShard(line) {
                    append(line, number: number, to: s)
                } else {
                    route(line, number: number)
                }
                if plan.owners.count >= ShardedReplay.blockLines || bytesInBlock >= ShardedReplay.blockBytes {
                    plan.bytesRead = lines.bytesRead
                    plan.lineNumber = number
                    plan.mappedEnd = lines.position
                    sendBlock()
                }
            }
            plan.bytesRead = lines.bytesRead
            plan.lineNumber = lines.lineNumber
            plan.mappedEnd = lines.position
            // Lines read before a read error are still applied, as they were read.
            sendBlock()
            mapping = nil
            mappedBase = nil
            for s in work.indices { work[s].mapping = nil }
            if !reading || oneJobFrom != nil { return nil }
            if let readError { return "\(source): read failed: \(readError)" }
        }
        return nil
    }

    /// A line not in the usual layout of a beacon event: parsed here, routed by its device.
    private mutating func route(_ line: UnsafeBufferPointer<UInt8>, number: Int) {
        switch LineIntake.replay(source: source).readInGeneral(line, number: number) {
        case .input(.sighting, _):
            // The presence layer's clock spans devices: the shards stop before this line.
            if rereadable { oneJobFrom = (sourceIndex, number) } else { refuse(ShardedReplay.sightingRefusal(jobs: shards.count), line: number) }
        case .input(let input, let identified):
            let s: Int
            if case .response(let response) = input { s = router.shard(for: response) } else { s = router.shard(input.device ?? "") }
            work[s].lines.append(ShardWork.Line(number: number, start: 0, count: 0, input: work[s].inputs.count))
            work[s].inputs.append((input, identified))
            note(s)
        case .rejected(let message):
            refuse(message, line: number)
        case .outbox, .blank:
            // Replay's intake reads no outbox requests, and the reader skipped blank lines.
            break
        }
    }

    /// A line's bytes to shard `s`, to be read there: where it lies in the mapped file, or else a copy.
    private mutating func append(_ line: UnsafeBufferPointer<UInt8>, number: Int, to s: Int) {
        if let mappedBase, let start = line.baseAddress {
            work[s].lines.append(ShardWork.Line(number: number, start: mappedBase.distance(to: start), count: line.count, input: -1))
        } else {
            work[s].lines.append(ShardWork.Line(number: number, start: work[s].bytes.count, count: line.count, input: -1))
            work[s].bytes.append(line)
        }
        bytesInBlock += line.count
        note(s)
    }

    private mutating func note(_ s: Int) {
        plan.owners.append(UInt8(s))
        plan.shards |= 1 << UInt64(s)
    }

    /// A line refused by the reader, in its place among the block's lines.
    private mutating func refuse(_ message: String, line: Int) {
        plan.owners.append(BlockPlan.readerLine)
        plan.messages.append(ErrorLine.json(kind: "error", source: source, line: line, message: message))
    }

    /// The block to the writer (its plan first) and to the shards that have lines of it.
    private mutating func sendBlock() {
        guard reading, !plan.owners.isEmpty || plan.newSource != nil else { return }
        var sent = plan
        sent.mapping = mapping
        plan = BlockPlan()
        plan.owners.reserveCapacity(sent.owners.count)
        bytesInBlock = 0
        guard plans.push(sent) else {
            reading = false
            return
        }
        for s in shards.indices where sent.shards & (1 << UInt64(s)) != 0 {
            let spare = shards[s].spareWork.poll() ?? ShardWork()
            var next = work[s]
            work[s] = spare
            work[s].source = source
            work[s].mapping = mapping
            next.source = source
            guard shards[s].work.push(next) else {
                reading = false
                return
            }
        }
    }
}
