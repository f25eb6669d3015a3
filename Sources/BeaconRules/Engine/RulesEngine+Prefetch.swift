extension RulesEngine {
    /// How many events to prefetch together: enough independent cache misses to overlap, few
    /// enough that what the first event loaded is still cached when the last is written (16 and
    /// 64 measured no better).
    public static var prefetchBatchSize: Int { PrefetchWindowWidth.events }

    /// Loads what writing `events` will read, changing nothing: call it for a batch of events
    /// just before writing them in order. Each event's lookups are a chain of cache misses
    /// (the device's table slot, then its state run, then its entries; the beacon's slot, then
    /// its candidate list). One event at a time, the chain is paid in full per event; a stage at
    /// a time for the whole batch, in tight loops, the loads of one stage do not depend on each
    /// other and the processor overlaps their misses. Output and state are the same with or
    /// without it.
    public mutating func prefetch(_ events: some Collection<BeaconEvent>) {
        var batch = InPlaceEventBatch()
        for event in events where batch.canHold(event) { batch.append(event) }
        prefetch(batch)
    }

    /// `prefetch` for a batch read in place (the events are then written from the batch).
    /// What it finds (each device's key, each beacon's number and run) is kept for
    /// `write(batch, at:)`.
    @_specialize(where Store == InMemorySuppressionStore)
    @usableFromInline package mutating func prefetch(_ events: borrowing InPlaceEventBatch) {
        let n = events.count
        var devices: [Store.DeviceKey?] = []
        swap(&devices, &caches.prefetched.devices)
        devices.removeAll(keepingCapacity: true)
        devices.append(contentsOf: repeatElement(nil, count: n))
        var sink = store.prefetchDevices(of: events, keys: &devices)
        swap(&devices, &caches.prefetched.devices)
        caches.prefetched.beacons.removeAll(keepingCapacity: true)
        caches.prefetched.beacons.append(contentsOf: repeatElement((number: -1, run: 0), count: n))
        caches.prefetched.stamp = events.stamp
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: n) { hashes in
            for i in 0..<n { hashes[i] = events[i].beacon.fastHash }
            for i in 0..<n { sink ^= caches.candidateIndex.numbers.touch(hash: hashes[i]) }
            // Where each event's candidates are (a range of `CandidateIndex.lists`, the list's lines
            // loaded), then every candidate's row.
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: n) { ranges in
                do {
                    let lists = caches.candidateIndex.lists
                    for i in 0..<n {
                        ranges[i] = 0..<0
                        let event = events[i]
                        guard let (number, run) = caches.candidateIndex.numbers.find(event.beacon, hash: hashes[i]) else { continue }
                        caches.prefetched.beacons[i] = (Int32(truncatingIfNeeded: number), run)
                        let range = CandidateIndex.range(run, event.kind)
                        guard !range.isEmpty, range.upperBound <= lists.count else { continue }
                        ranges[i] = range
                        sink ^= UInt64(UInt32(bitPattern: lists[range.lowerBound]))
                    }
                    do {
                        for i in 0..<n {
                            for k in ranges[i] { sink ^= UInt64(table.rows[Int(lists[k])].triggerMask) }
                        }
                        // Then the first timeframe of the rows that have any (a row's state key
                        // is in the row itself).
                        do {
                            let bounds = table.frameBounds
                            for i in 0..<n {
                                for k in ranges[i] {
                                    let row = table.rows[Int(lists[k])]
                                    if row.framesCount > 0 { sink ^= UInt64(bitPattern: bounds[Int(row.framesStart) * 2]) }
                                }
                            }
                        }
                    }
                }
            }
        }
        caches.prefetched.sink ^= sink
    }
}
