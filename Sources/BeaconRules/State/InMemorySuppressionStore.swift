/// Suppression state in memory, compact: device ids and campaign ids are interned once, and each
/// (device, campaign) entry is 12 bytes (campaign and time side by side) in its device's run (`DeviceFirings`).
public struct InMemorySuppressionStore: SuppressionStore, PrefetchingSuppressionStore, Sendable {
    private var devices = DeviceTable()
    private var campaignSlots: [CampaignID: UInt32] = [:]
    private var campaigns: [CampaignID] = []
    private var firings = DeviceFirings()
    /// Where `forgetFirings` goes on, and the horizons by campaign slot for the expiry's generation.
    private var sweep = 0
    private var slotHorizons: [Int64?] = []
    private var slotHorizonsGeneration = -1
    /// Devices a step of `forgetFirings` left with no state, reused.
    private var emptied: [UInt32] = []

    /// An empty store.
    public init() {}

    /// A store holding these firings (as another store listed them).
    public init(entries: some Sequence<FiringEntry>) {
        for entry in entries { recordFiring(device: entry.device, campaign: entry.campaign, at: entry.time) }
    }

    /// Entries kept.
    public var count: Int { firings.count }

    /// Devices with state held (a device whose state is all forgotten is forgotten too).
    public var deviceCount: Int { devices.count }

    /// Device numbers given out so far, held or free (the size of the tables by number).
    var numberedDevices: Int { devices.ids.count }

    /// Looks the device and campaign up by name; nil for either unknown.
    public func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        guard let d = devices.number(device), let c = campaignSlots[campaign] else { return nil }
        return lastFiring(UInt32(d), c)
    }

    /// Numbers the device and campaign when new, then records the firing.
    public mutating func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        recordFiring(key(device: device), key(campaign: campaign), at: time)
    }

    /// The device's number, nil when the store has no state for it.
    public func existingKey(device: String) -> UInt32? { devices.number(device).map(UInt32.init) }

    /// The device's number; a new device gets the next one.
    public mutating func key(device: String) -> UInt32 {
        if let slot = devices.number(device) { return UInt32(slot) }
        return add(device: device)
    }

    /// The number of the device with these UTF-8 bytes, found without making a `String`.
    @inline(__always)
    public func existingKey(deviceUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        devices.find(utf8: bytes, hash: String.fastHash(utf8: bytes)).map { UInt32($0) }
    }

    /// The number of the device with these bytes; a `String` is made only for a new device.
    public mutating func key(deviceUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        if let slot = existingKey(deviceUTF8: bytes) { return slot }
        return add(device: InPlaceEvent.text(bytes))
    }

    private mutating func add(device: String) -> UInt32 {
        let slot = firings.addDevice()
        let number = devices.add(device)
        // Both give out the same number: the last removed (`forgetFirings` removes
        // from both in the same order), else the next new one.
        precondition(number == Int(slot), "the device table and the firings disagree on a device number")
        return slot
    }

    /// The campaign's slot, numbered when first asked.
    public mutating func key(campaign: CampaignID) -> UInt32 {
        if let slot = campaignSlots[campaign] { return slot }
        let slot = UInt32(campaigns.count)
        campaignSlots[campaign] = slot
        campaigns.append(campaign)
        return slot
    }

    /// The devices' table slots, then their runs, then their first and last entries: each stage
    /// a tight loop of independent loads.
    package func prefetch(devicesOf events: borrowing InPlaceEventBatch, keys: inout [UInt32?]) -> UInt64 {
        let n = events.count
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: n) { hashes in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: n) { numbers in
                var sink: UInt64 = 0
                for i in 0..<n { hashes[i] = String.fastHash(utf8: events[i].device) }
                for i in 0..<n { sink ^= devices.touch(hash: hashes[i]) }
                for i in 0..<n {
                    let number = devices.find(utf8: events[i].device, hash: hashes[i])
                    numbers[i] = number.map(Int32.init) ?? -1
                    if let number { keys[i] = UInt32(number) }
                }
                return sink ^ firings.touch(devices: UnsafeBufferPointer(start: numbers.baseAddress, count: n))
            }
        }
    }

    /// The last firing in the device's run, nil when none is kept.
    @inline(__always)
    public func lastFiring(_ device: UInt32, _ campaign: UInt32) -> Timestamp? {
        firings.value(device: device, campaign: campaign).map(Timestamp.init(milliseconds:))
    }

    /// The device's run is read once for all of `campaigns`.
    public func lastFirings(_ device: UInt32, _ campaigns: UnsafeBufferPointer<UInt32>, into times: UnsafeMutablePointer<Int64?>) {
        firings.values(device: device, campaigns: campaigns, into: times)
    }

    /// Sets the entry in the device's run (12 bytes: campaign slot and time), and when it expires
    /// by the horizons of the last sweep (`Int64.min`, to be looked at, for a campaign they lack).
    @inline(__always)
    public mutating func recordFiring(_ device: UInt32, _ campaign: UInt32, at time: Timestamp) {
        let ms = time.milliseconds
        let end = Int(campaign) < slotHorizons.count ? FiringExpiry.end(horizon: slotHorizons[Int(campaign)], time: ms) : .min
        firings.set(device: device, campaign: campaign, time: ms, end: end)
    }

    /// A step of the sweep over devices. A device whose state is all gone is forgotten too (its
    /// id and run), and its number is the key of the next new device: keys given out before the
    /// call must not be used after it (the engine keeps them for one batch only).
    public mutating func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int {
        if firings.count == 0 && devices.count == 0 { return 0 }
        if slotHorizonsGeneration != expiry.generation || slotHorizons.count != campaigns.count {
            // New horizons: the runs' wakes came from the old ones. (New campaign slots alone
            // change no wake: their firings were recorded with `Int64.min`.)
            if slotHorizonsGeneration != expiry.generation { firings.forgetWakes() }
            slotHorizons = campaigns.map { expiry.horizons[$0] }
            slotHorizonsGeneration = expiry.generation
        }
        let horizons = slotHorizons
        emptied.removeAll(keepingCapacity: true)
        let (next, dropped) = firings.forget(from: sweep, limit: limit, cutoff: expiry.cutoff, emptied: &emptied) { campaign, time in
            FiringExpiry.end(horizon: Int(campaign) < horizons.count ? horizons[Int(campaign)] : nil, time: time)
        }
        for device in emptied {
            devices.remove(number: Int(device))
            firings.removeDevice(device)
        }
        sweep = next
        return dropped
    }

    /// Every entry, sorted by device then campaign (a stable order for files and tests).
    public var entries: [FiringEntry] {
        var result: [FiringEntry] = []
        result.reserveCapacity(firings.count)
        firings.forEach { device, campaign, ms in
            result.append(FiringEntry(device: devices.ids[Int(device)], campaign: campaigns[Int(campaign)], time: Timestamp(milliseconds: ms)))
        }
        return result.sorted { ($0.device, $0.campaign.canonical) < ($1.device, $1.campaign.canonical) }
    }
}
