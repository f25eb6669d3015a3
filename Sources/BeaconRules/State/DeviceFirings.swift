/// Suppression state laid out by device: each device's (campaign, time) entries sit in one short
/// run of a pooled array, each entry's campaign beside its time, so an event's state checks read
/// one or two cache lines instead of probing a large hash table once per candidate campaign.
///
/// Nothing here grows or shrinks all at once (at a million devices a doubling of the pool copied
/// tens of megabytes, and a compaction rewrote it): the pool and the runs are `ChunkedArray`s, and
/// a run sits in a piece of the pool of a power-of-two size (its capacity) at a place that is a
/// multiple of it, so that it never crosses a chunk's end. A run that outgrows its piece moves to
/// one twice the size; the piece it leaves (or a removed device's) is free for the next run of
/// that size (`freePieces`), a larger free piece is split for a smaller one, and new pieces are
/// taken at the pool's end.
struct DeviceFirings: Sendable {
    private struct Run: Sendable {
        var start: UInt32
        var count: UInt32
        var capacity: UInt32
        /// Bit `campaign % 64` is set for each campaign in the run: a lookup of a campaign the device
        /// never fired (most lookups) usually ends here without reading the run.
        var filter: UInt64 = 0
        /// At most the earliest `end` of the run's entries (the event time at which the first of
        /// them can expire): while the sweep's cutoff is before it, `forget` passes the run by
        /// without reading its entries. `Int64.min` (a new or empty run, or after `forgetWakes`):
        /// the run is read; `Int64.max`: no entry ever expires (or the device is removed).
        var wake: Int64 = .min
    }

    /// 12 bytes: the time is kept as two 32-bit halves so that an entry needs no 8-byte alignment.
    private struct Entry: Sendable {
        var campaign: UInt32
        private var low: UInt32
        private var high: Int32

        init(campaign: UInt32, time: Int64) {
            self.campaign = campaign
            low = UInt32(truncatingIfNeeded: time)
            high = Int32(truncatingIfNeeded: time >> 32)
        }

        var time: Int64 {
            get { Int64(high) << 32 | Int64(low) }
            set { self = Entry(campaign: campaign, time: newValue) }
        }
    }

    /// Chunks of 2^20 entries (12 MiB): no run is larger (a device's entries are one per campaign).
    private var entries = ChunkedArray<Entry>(shift: 20)
    private var runs = ChunkedArray<Run>(shift: 15)
    /// Free pieces of the pool, by size: `freePieces[k]` holds the places of free pieces of 2^k
    /// entries; bit k of `piecesFree` is set when it holds any.
    private var freePieces = [[UInt32]](repeating: [], count: 21)
    private var piecesFree: UInt32 = 0
    private(set) var count = 0
    /// Devices removed (`removeDevice`), their numbers given out again by `addDevice`, the last first.
    private var free: [UInt32] = []
    /// The `start` of a removed device's run.
    private static let removed = UInt32.max

    /// Entries of the pool, in pieces held by runs or free (for tests).
    var poolSize: Int { entries.count }
    /// Entries of the pool in free pieces (for tests).
    var freeEntries: Int { freePieces.indices.reduce(0) { $0 + freePieces[$1].count << $1 } }

    /// Devices held (numbers are dense, from 0, removed ones given out again).
    var deviceCount: Int { runs.count - free.count }

    mutating func addDevice() -> UInt32 {
        let run = Run(start: 0, count: 0, capacity: 0)
        if let device = free.popLast() {
            runs[Int(device)] = run
            return device
        }
        runs.append(run)
        return UInt32(runs.count - 1)
    }

    /// Drops a device with no entries left; its number goes to the next `addDevice`.
    mutating func removeDevice(_ device: UInt32) {
        let run = runs[Int(device)]
        precondition(run.count == 0 && run.start != Self.removed, "removing a device that has state")
        if run.capacity > 0 { freePiece(at: Int(run.start), size: Int(run.capacity)) }
        runs[Int(device)] = Run(start: Self.removed, count: 0, capacity: 0, wake: .max)
        free.append(device)
    }

    @inline(__always)
    func value(device: UInt32, campaign: UInt32) -> Int64? {
        let run = runs.unchecked(Int(device))
        if run.filter & Self.bit(campaign) == 0 { return nil }
        return Self.time(of: campaign, in: entries.unsafePointer(at: Int(run.start)), count: Int(run.count))
    }

    /// `value` for each of `campaigns`, into `times`, with the device's run read once.
    func values(device: UInt32, campaigns: UnsafeBufferPointer<UInt32>, into times: UnsafeMutablePointer<Int64?>) {
        let run = runs.unchecked(Int(device))
        if run.filter == 0 {
            for k in campaigns.indices { times[k] = nil }
            return
        }
        // A run never crosses a chunk's end: its entries are read from one place.
        let pool = entries.unsafePointer(at: Int(run.start))
        for k in campaigns.indices {
            times[k] = run.filter & Self.bit(campaigns[k]) == 0 ? nil : Self.time(of: campaigns[k], in: pool, count: Int(run.count))
        }
    }

    /// The time of `campaign`'s entry in the run of `count` entries at `run` (the caller has
    /// checked the run's filter: most campaigns a device never fired end there).
    @inline(__always)
    private static func time(of campaign: UInt32, in run: UnsafePointer<Entry>, count: Int) -> Int64? {
        var i = 0
        while i < count {
            if run[i].campaign == campaign { return run[i].time }
            i += 1
        }
        return nil
    }

    /// Loads (changing nothing) the runs of `devices`, then their first and last entries, each
    /// stage in a tight loop so that its cache misses overlap (see `NumberingTable.touch(hash:)`);
    /// -1 is no device. Returns a word of what it read.
    func touch(devices: UnsafeBufferPointer<Int32>) -> UInt64 {
        var sink: UInt64 = 0
        runs.withReader { runs in
            for d in devices where d >= 0 { sink ^= runs[Int(d)].filter }
            entries.withReader { entries in
                for d in devices where d >= 0 {
                    let run = runs[Int(d)]
                    // The run's first and last entries: a run of up to ten spans two lines.
                    if run.count > 0 {
                        let pool = entries.pointer(at: Int(run.start))
                        sink ^= UInt64(pool[0].campaign) ^ UInt64(pool[Int(run.count) - 1].campaign)
                    }
                }
            }
        }
        return sink
    }

    @inline(__always)
    private static func bit(_ campaign: UInt32) -> UInt64 { 1 << UInt64(campaign & 63) }

    /// Sets the device's entry for `campaign` to `time`; `end` is when it expires (see `forget`;
    /// `Int64.min` when not known yet), which the run's `wake` takes if earlier.
    mutating func set(device: UInt32, campaign: UInt32, time: Int64, end: Int64) {
        var run = runs.unchecked(Int(device))
        let start = Int(run.start)
        if run.filter & Self.bit(campaign) != 0 {
            let found = entries.withMutableChunk(of: start) { chunk, offset in
                for i in offset..<offset + Int(run.count) where chunk[i].campaign == campaign {
                    chunk[i].time = time
                    return true
                }
                return false
            }
            if found {
                if end < run.wake { runs[Int(device)].wake = end }
                return
            }
        }
        run.filter |= Self.bit(campaign)
        run.wake = min(run.wake, end)
        if run.count == run.capacity {
            // A piece twice the size, the run copied into it; the old piece is free.
            let newCapacity = max(2, run.capacity * 2)
            precondition(Int(newCapacity) <= entries.chunkSize, "more than \(entries.chunkSize) campaigns kept for one device")
            let newStart = takePiece(size: Int(newCapacity))
            entries.copy(from: start, to: newStart, count: Int(run.count))
            if run.capacity > 0 { freePiece(at: start, size: Int(run.capacity)) }
            run.start = UInt32(newStart)
            run.capacity = newCapacity
        }
        entries[Int(run.start + run.count)] = Entry(campaign: campaign, time: time)
        run.count += 1
        count += 1
        runs[Int(device)] = run
    }

    /// A free piece of `size` entries (a power of two): one of that size, else a larger one split
    /// (its halves not taken are free), else new at the pool's end, placed at a multiple of
    /// `size` (the entries skipped to get there are free pieces of their own).
    private mutating func takePiece(size: Int) -> Int {
        let k = size.trailingZeroBitCount
        let classes = piecesFree >> UInt32(k)
        if classes != 0 {
            // The smallest free piece at least as large: the first `size` entries taken, the rest
            // halved down to `size`, each half free.
            let larger = k + classes.trailingZeroBitCount
            let place = Int(takeFree(larger))
            var half = (1 << larger) >> 1
            while half >= size {
                freePiece(at: place + half, size: half)
                half >>= 1
            }
            return place
        }
        var end = entries.count
        while end % size != 0 {
            let piece = end & -end
            freePiece(at: end, size: piece)
            end += piece
        }
        precondition(end + size <= Int(Self.removed), "the suppression state's pool is full")
        entries.append(repeating: Entry(campaign: 0, time: 0), count: end + size - entries.count)
        return end
    }

    private mutating func freePiece(at place: Int, size: Int) {
        let k = size.trailingZeroBitCount
        freePieces[k].append(UInt32(place))
        piecesFree |= 1 << UInt32(k)
    }

    private mutating func takeFree(_ k: Int) -> UInt32 {
        let place = freePieces[k].removeLast()
        if freePieces[k].isEmpty { piecesFree &= ~(1 << UInt32(k)) }
        return place
    }

    /// Drops the entries that have expired by `cutoff`, those whose `end(campaign, time)` is at or
    /// before it (`Int64.max`: never), of devices from `device` on, until `limit` devices were
    /// looked at (a run is one or two cache lines, whatever its length). Returns the device to go
    /// on from (0 after the last) and how many entries were dropped; `emptied` gets the devices
    /// looked at that hold no entry now (for the caller to remove). A run keeps its place and
    /// capacity; its order may change (the last entry fills the gap). A run whose `wake` is after
    /// `cutoff` has nothing to drop and is passed by unread; a run read gets its exact `wake`.
    mutating func forget(from device: Int, limit: Int, cutoff: Int64, emptied: inout [UInt32], end: (_ campaign: UInt32, _ time: Int64) -> Int64) -> (next: Int, dropped: Int) {
        var d = device < runs.count ? device : 0
        var seen = 0, dropped = 0
        while d < runs.count && seen < limit {
            seen += 1
            var run = runs.unchecked(d)
            if run.wake > cutoff {
                d += 1
                continue
            }
            if run.count > 0 {
                var i = Int(run.start)
                var stop = i + Int(run.count)
                var removed = false
                var wake = Int64.max
                while i < stop {
                    let expires = end(entries[i].campaign, entries[i].time)
                    if expires <= cutoff && expires != .max {
                        stop -= 1
                        entries[i] = entries[stop]
                        removed = true
                        dropped += 1
                    } else {
                        wake = min(wake, expires)
                        i += 1
                    }
                }
                run.wake = wake
                if removed {
                    run.count = UInt32(stop - Int(run.start))
                    run.filter = 0
                    for k in Int(run.start)..<stop { run.filter |= Self.bit(entries[k].campaign) }
                }
                if run.count == 0 { run.wake = .min }
                runs[d] = run
            }
            if run.count == 0 && run.start != Self.removed { emptied.append(UInt32(d)) }
            d += 1
        }
        count -= dropped
        return (d < runs.count ? d : 0, dropped)
    }

    /// Every run is read at its next sweep (the ends its `wake` came from no longer hold: the
    /// horizons changed).
    mutating func forgetWakes() {
        for d in runs.indices where runs[d].start != Self.removed { runs[d].wake = .min }
    }

    func forEach(_ body: (_ device: UInt32, _ campaign: UInt32, _ time: Int64) -> Void) {
        for d in runs.indices {
            let run = runs[d]
            guard run.start != Self.removed else { continue }
            for i in Int(run.start)..<Int(run.start + run.count) { body(UInt32(d), entries[i].campaign, entries[i].time) }
        }
    }
}
