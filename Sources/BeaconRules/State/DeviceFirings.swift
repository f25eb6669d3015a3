/// Suppression state laid out by device: each device's (campaign, time) entries sit in one short
/// run of a pooled array, each entry's campaign beside its time, so an event's state checks read
/// one or two cache lines instead of probing a large hash table once per candidate campaign.
///
/// A run that outgrows its capacity moves to the end of the pool with twice the room; the pool is
/// compacted when moved-out space exceeds what is in use.
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

    private var entries: [Entry] = []
    private var runs: [Run] = []
    private var abandoned = 0
    private(set) var count = 0
    /// Devices removed (`removeDevice`), their numbers given out again by `addDevice`, the last first.
    private var free: [UInt32] = []
    /// The `start` of a removed device's run.
    private static let removed = UInt32.max

    /// Devices held (numbers are dense, from 0, removed ones given out again).
    var deviceCount: Int { runs.count - free.count }

    mutating func addDevice() -> UInt32 {
        let run = Run(start: UInt32(entries.count), count: 0, capacity: 0)
        if let device = free.popLast() {
            runs[Int(device)] = run
            return device
        }
        runs.append(run)
        return UInt32(runs.count - 1)
    }

    /// Drops a device with no entries left; its number goes to the next `addDevice`.
    mutating func removeDevice(_ device: UInt32) {
        precondition(runs[Int(device)].count == 0 && runs[Int(device)].start != Self.removed, "removing a device that has state")
        abandoned += Int(runs[Int(device)].capacity)
        runs[Int(device)] = Run(start: Self.removed, count: 0, capacity: 0, wake: .max)
        free.append(device)
    }

    @inline(__always)
    func value(device: UInt32, campaign: UInt32) -> Int64? {
        let run = runs[Int(device)]
        return entries.withUnsafeBufferPointer { Self.time(of: campaign, in: run, pool: $0) }
    }

    /// `value` for each of `campaigns`, into `times`, with the device's run read once.
    func values(device: UInt32, campaigns: UnsafeBufferPointer<UInt32>, into times: UnsafeMutablePointer<Int64?>) {
        let run = runs[Int(device)]
        entries.withUnsafeBufferPointer { pool in
            for k in campaigns.indices { times[k] = Self.time(of: campaigns[k], in: run, pool: pool) }
        }
    }

    /// The time of `campaign`'s entry in `run`: the filter first (most campaigns a device never
    /// fired end there), then the run.
    @inline(__always)
    private static func time(of campaign: UInt32, in run: Run, pool: UnsafeBufferPointer<Entry>) -> Int64? {
        if run.filter & bit(campaign) == 0 { return nil }
        var i = Int(run.start)
        let end = i + Int(run.count)
        while i < end {
            if pool[i].campaign == campaign { return pool[i].time }
            i += 1
        }
        return nil
    }

    /// Loads (changing nothing) the runs of `devices`, then their first and last entries, each
    /// stage in a tight loop so that its cache misses overlap (see `NumberingTable.touch(hash:)`);
    /// -1 is no device. Returns a word of what it read.
    func touch(devices: UnsafeBufferPointer<Int32>) -> UInt64 {
        var sink: UInt64 = 0
        runs.withUnsafeBufferPointer { runs in
            for d in devices where d >= 0 { sink ^= runs[Int(d)].filter }
            entries.withUnsafeBufferPointer { pool in
                for d in devices where d >= 0 {
                    let run = runs[Int(d)]
                    // The run's first and last entries: a run of up to ten spans two lines.
                    if run.count > 0 {
                        sink ^= UInt64(pool[Int(run.start)].campaign)
                        sink ^= UInt64(pool[Int(run.start + run.count - 1)].campaign)
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
        var run = runs[Int(device)]
        let start = Int(run.start)
        if run.filter & Self.bit(campaign) != 0 {
            for i in start..<start + Int(run.count) where entries[i].campaign == campaign {
                entries[i].time = time
                if end < run.wake { runs[Int(device)].wake = end }
                return
            }
        }
        run.filter |= Self.bit(campaign)
        run.wake = min(run.wake, end)
        if run.count == run.capacity {
            let newCapacity = max(2, run.capacity * 2)
            let room = Entry(campaign: 0, time: 0)
            if start + Int(run.capacity) == entries.count {
                // The last run grows in place.
                entries.append(contentsOf: repeatElement(room, count: Int(newCapacity - run.capacity)))
            } else {
                let newStart = entries.count
                // Room first, then the run copied into it within the pool (appending a slice of the
                // array to itself would copy the whole pool; copying it out first allocated per move).
                entries.append(contentsOf: repeatElement(room, count: Int(newCapacity)))
                entries.withUnsafeMutableBufferPointer { pool in
                    for k in 0..<Int(run.count) { pool[newStart + k] = pool[start + k] }
                }
                abandoned += Int(run.capacity)
                run.start = UInt32(newStart)
            }
            run.capacity = newCapacity
        }
        entries[Int(run.start + run.count)] = Entry(campaign: campaign, time: time)
        run.count += 1
        count += 1
        runs[Int(device)] = run
        if abandoned > 1 << 16 && abandoned > entries.count / 2 { compact() }
    }

    /// Rewrites the pool without the space runs moved out of.
    private mutating func compact() {
        var pool: [Entry] = []
        pool.reserveCapacity(entries.count - abandoned)
        for d in runs.indices where runs[d].start != Self.removed {
            let run = runs[d]
            let start = Int(run.start)
            runs[d].start = UInt32(pool.count)
            pool.append(contentsOf: entries[start..<start + Int(run.capacity)])
        }
        entries = pool
        abandoned = 0
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
            if runs[d].wake > cutoff {
                d += 1
                continue
            }
            var run = runs[d]
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
        for (d, run) in runs.enumerated() where run.start != Self.removed {
            for i in Int(run.start)..<Int(run.start + run.count) { body(UInt32(d), entries[i].campaign, entries[i].time) }
        }
    }
}
