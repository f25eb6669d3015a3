/// Suppression state laid out by device: each device's (campaign, time) entries sit in one short
/// run of two pooled arrays, so an event's state checks read one or two cache lines instead of
/// probing a large hash table once per candidate campaign.
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
    }

    private var campaigns: [UInt32] = []
    private var times: [Int64] = []
    private var runs: [Run] = []
    private var abandoned = 0
    private(set) var count = 0

    /// Devices known (slots are dense, from 0).
    var deviceCount: Int { runs.count }

    mutating func addDevice() -> UInt32 {
        runs.append(Run(start: UInt32(campaigns.count), count: 0, capacity: 0))
        return UInt32(runs.count - 1)
    }

    @inline(__always)
    func value(device: UInt32, campaign: UInt32) -> Int64? {
        let run = runs[Int(device)]
        if run.filter & Self.bit(campaign) == 0 { return nil }
        return campaigns.withUnsafeBufferPointer { ids in
            var i = Int(run.start)
            let end = i + Int(run.count)
            while i < end {
                if ids[i] == campaign { return times[i] }
                i += 1
            }
            return nil
        }
    }

    @inline(__always)
    private static func bit(_ campaign: UInt32) -> UInt64 { 1 << UInt64(campaign & 63) }

    mutating func set(device: UInt32, campaign: UInt32, time: Int64) {
        var run = runs[Int(device)]
        let start = Int(run.start)
        if run.filter & Self.bit(campaign) != 0 {
            for i in start..<start + Int(run.count) where campaigns[i] == campaign {
                times[i] = time
                return
            }
        }
        run.filter |= Self.bit(campaign)
        if run.count == run.capacity {
            let newCapacity = max(2, run.capacity * 2)
            if start + Int(run.capacity) == campaigns.count {
                // The last run grows in place.
                campaigns.append(contentsOf: repeatElement(0, count: Int(newCapacity - run.capacity)))
                times.append(contentsOf: repeatElement(0, count: Int(newCapacity - run.capacity)))
            } else {
                let newStart = campaigns.count
                // Copied out first: appending a slice of the array to itself would copy the whole pool.
                let movingCampaigns = Array(campaigns[start..<start + Int(run.count)])
                let movingTimes = Array(times[start..<start + Int(run.count)])
                campaigns.append(contentsOf: movingCampaigns)
                times.append(contentsOf: movingTimes)
                campaigns.append(contentsOf: repeatElement(0, count: Int(newCapacity - run.count)))
                times.append(contentsOf: repeatElement(0, count: Int(newCapacity - run.count)))
                abandoned += Int(run.capacity)
                run.start = UInt32(newStart)
            }
            run.capacity = newCapacity
        }
        let slot = Int(run.start + run.count)
        campaigns[slot] = campaign
        times[slot] = time
        run.count += 1
        count += 1
        runs[Int(device)] = run
        if abandoned > 1 << 16 && abandoned > campaigns.count / 2 { compact() }
    }

    /// Rewrites the pool without the space runs moved out of.
    private mutating func compact() {
        var newCampaigns: [UInt32] = []
        var newTimes: [Int64] = []
        newCampaigns.reserveCapacity(campaigns.count - abandoned)
        newTimes.reserveCapacity(campaigns.count - abandoned)
        for d in runs.indices {
            let run = runs[d]
            let start = Int(run.start)
            runs[d].start = UInt32(newCampaigns.count)
            newCampaigns.append(contentsOf: campaigns[start..<start + Int(run.capacity)])
            newTimes.append(contentsOf: times[start..<start + Int(run.capacity)])
        }
        campaigns = newCampaigns
        times = newTimes
        abandoned = 0
    }

    func forEach(_ body: (_ device: UInt32, _ campaign: UInt32, _ time: Int64) -> Void) {
        for (d, run) in runs.enumerated() {
            for i in Int(run.start)..<Int(run.start + run.count) { body(UInt32(d), campaigns[i], times[i]) }
        }
    }
}
