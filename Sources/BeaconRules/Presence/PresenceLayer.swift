/// A device at a beacon: what presence is tracked per.
public struct PresenceKey: Sendable, Hashable {
    /// The device id, as events give it.
    public var device: String
    /// The beacon the device hears (or, for fixed scanners, is heard by).
    public var beacon: BeaconID
    /// The key of a device at a beacon.
    public init(device: String, beacon: BeaconID) {
        self.device = device
        self.beacon = beacon
    }

    /// The pair an input is about.
    init(of input: InputEvent) {
        switch input {
        case .beacon(let e): self.init(device: e.device, beacon: e.beacon)
        case .sighting(let s, _): self.init(device: s.device, beacon: s.beacon)
        }
    }
}

/// What the presence layer hands on to matching, in event-time order.
public enum PresenceOutput: Sendable, Equatable {
    /// A stay started (given enter, or derived from sightings).
    case enter(BeaconEvent)
    /// A stay ended: `event.time` is the confirmed exit time; the device was last there at `departedAt`.
    case exit(BeaconEvent, departedAt: Timestamp)
    /// The device has stayed `dwellMilliseconds` (an enter-kind event at the dwell time).
    case dwell(BeaconEvent, dwellMilliseconds: Int64)
}

/// Why an input was not used by the presence layer.
public struct PresenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the input, naming the field.
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The presence layer: orders input by event time (within `maxLateness`), runs one
/// `PresenceTracker` per (device, beacon), and fires exit timeouts and dwells as event time passes.
/// Lateness is measured per device where state is per device: a device whose input is behind the
/// stream runs on a lane of its own (`PresenceLane`) until it catches up. No I/O and no clock of
/// its own: time is what the input says (`advance(to:)` moves it on a server).
public struct PresenceLayer: Sendable {
    /// The thresholds and timings the layer applies.
    public let settings: PresenceSettings
    var campaigns: CampaignSet
    /// The slot of each (device, beacon) pair held, by the key's (seeded) hash: a table that
    /// doubles a few slots per pair added or forgotten (`GrowingSlots`).
    var keyIndex = GrowingSlots<NumberedKeySlot>()
    /// The pairs by slot. A forgotten pair's slot is free (`serials` -1, in `freeSlots`) until a
    /// new pair takes it, so forgetting a pair moves no other (`forgetIdlePairs`). In chunks, as
    /// the trackers, so that growing never copies them all.
    var pairKeys = ChunkedArray<PresenceKey>(shift: 12)
    /// Each slot's tracker (a free slot's is new).
    package internal(set) var trackers = ChunkedArray<PresenceTracker>(shift: 12)
    /// Each slot's place in the order pairs were first seen (-1: a free slot): timers due at the
    /// same time fire in that order, and a timer set for a pair since forgotten is known by it.
    var serials: [Int] = []
    var nextSerial = 0
    /// Free slots, the last freed taken first.
    var freeSlots: [Int] = []
    /// The earliest outstanding timer per key (`Int64.max`: none), so sightings do not pile timers up.
    var scheduledAt: [Int64] = []
    /// The stream's timers and reorder buffer.
    var timers = MinHeap<Timer>()
    var buffer = MinHeap<Buffered>()
    var sequence = 0
    /// The devices seen, by name (the order first seen), and the lanes of those behind the stream.
    var deviceIndex: [String: Int] = [:]
    var lanes: [Int: PresenceLane] = [:]
    /// The newest event time accepted in the stream, and the time processing has reached.
    public internal(set) var newestTime = Int64.min
    /// The event time processing has reached (ms): timeouts and dwells up to it have fired.
    public internal(set) var clock = Int64.min
    /// The time a server's clock moved the layer on to (`advance(to:)`); `Int64.min` in replay.
    var floor = Int64.min
    var dwellLengths: [BeaconID: [Int64]] = [:]
    /// The subjects' rooms when `settings.exclusiveZones` is set; sightings then open and end stays
    /// only through it.
    var zones: ExclusiveZones?
    private var changes: [PresenceTracker.Change] = []
    /// How long (ms) a (device, beacon) pair with no open stay and no input is kept: after it,
    /// `advance(to:)` forgets it, so that a server's memory and saved presence state follow the
    /// pairs in use, not every pair ever seen. The pipeline sets it to the answer retention.
    public var idleHorizon: Int64 = 24 * 3_600_000
    /// The number of pairs the next sweep of idle pairs waits for: twice those kept by the last,
    /// so that sweeping costs a constant per pair added.
    var sweepAt = PresenceLayer.firstSweep
    /// The pairs held before idle ones are first looked for.
    package static let firstSweep = 4096
    /// The slot the sweep under way goes on from (`forgetIdlePairs(at:limit:)`); nil when none is.
    var sweepNext: Int?
    /// Pairs forgotten since the layer was made (`forgetIdlePairs`).
    package internal(set) var pairsForgotten = 0
    /// Inputs taken since the clock last moved on (`advance(to:)`), which sizes the sweep's slice.
    var addedSinceAdvance = 0
    /// Outputs not yet taken by the caller (`take()`).
    public private(set) var outputs: [PresenceOutput] = []

    static func hash(_ key: PresenceKey) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(key)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The slot of a pair held, nil when it is not.
    func slot(of key: PresenceKey) -> Int? {
        let hash = Self.hash(key)
        return keyIndex.find(hash: hash) { $0.hash == hash && pairKeys[$0.number] == key }?.number
    }

    /// Pairs held.
    var pairCount: Int { keyIndex.count }

    struct Timer: Comparable, Sendable {
        var due: Int64
        /// The pair's place in the order first seen (`serials`): ties go in that order, and a
        /// timer whose slot no longer holds that pair is stale.
        var serial: Int
        var key: Int
        static func < (a: Timer, b: Timer) -> Bool { (a.due, a.serial) < (b.due, b.serial) }
    }

    struct Buffered: Comparable, Sendable {
        var time: Int64
        var sequence: Int
        var input: InputEvent
        /// The input's device index (`deviceIndex`), or -1 when devices have no lanes.
        var device: Int
        static func < (a: Buffered, b: Buffered) -> Bool { (a.time, a.sequence) < (b.time, b.sequence) }
        static func == (a: Buffered, b: Buffered) -> Bool { a.time == b.time && a.sequence == b.sequence }
    }

    /// A layer for these campaigns (their dwell lengths decide which stays it times).
    public init(settings: PresenceSettings, campaigns: CampaignSet) {
        self.settings = settings
        self.campaigns = campaigns
        self.zones = settings.exclusiveZones.map(ExclusiveZones.init(subject:))
    }

    /// Events of the stream older than this are too late to be used: things at their time are
    /// already decided.
    public var watermark: Int64 {
        newestTime == Int64.min ? Int64.min : newestTime &- settings.maxLatenessMilliseconds
    }

    /// Whether devices may run behind the stream: not when exclusive zones compare a beacon across
    /// devices (scanners), whose input must then be in time order across them.
    var lanesPerDevice: Bool { settings.exclusiveZones != .beacon }

    /// The device's index, given when first seen.
    mutating func register(_ name: String) -> Int {
        if let index = deviceIndex[name] { return index }
        let index = deviceIndex.count
        deviceIndex[name] = index
        return index
    }

    /// The device's index; a device not seen before whose input is behind the stream gets a lane
    /// (in replay: on a server, the clock says what is late). -1 on a server whose clock has moved
    /// on with no lane open: no device gets a lane any more (lanes are only made before the first
    /// clock), so names are not kept (they would grow with every device seen).
    private mutating func device(_ name: String, firstAt t: Int64) -> Int {
        if let index = deviceIndex[name] { return index }
        if floor != Int64.min && lanes.isEmpty { return -1 }
        let index = register(name)
        if lanesPerDevice && floor == Int64.min && t < watermark { lanes[index] = PresenceLane() }
        return index
    }

    /// Takes an input. It is held until the watermark (of the stream, or of its device's lane)
    /// passes its time, so input up to `maxLateness` out of order is processed in time order; older
    /// input is refused with a message saying so.
    public mutating func add(_ input: InputEvent) throws(PresenceError) {
        let t = input.time.milliseconds
        addedSinceAdvance &+= 1
        var device = -1
        if lanesPerDevice {
            device = self.device(PresenceKey(of: input).device, firstAt: t)
            if lanes[device] != nil {
                try addBehind(input, at: t, device: device)
                return
            }
        }
        if t < watermark { throw late(input, newest: newestTime, device: nil) }
        newestTime = Swift.max(newestTime, t)
        buffer.push(Buffered(time: t, sequence: sequence, input: input, device: device))
        sequence += 1
        release(upTo: watermark)
    }

    /// An input of a device behind the stream: on its own lane, which joins the stream once its
    /// newest time has caught up with the stream's watermark.
    private mutating func addBehind(_ input: InputEvent, at t: Int64, device: Int) throws(PresenceError) {
        let lateness = settings.maxLatenessMilliseconds
        if t < lanes[device]!.watermark(floor: floor, lateness: lateness) {
            throw late(input, newest: Swift.max(lanes[device]!.newest, floor), device: PresenceKey(of: input).device)
        }
        lanes[device]!.newest = Swift.max(lanes[device]!.newest, t)
        lanes[device]!.buffer.push(Buffered(time: t, sequence: sequence, input: input, device: device))
        sequence += 1
        if lanes[device]!.newest >= watermark {
            let lane = lanes.removeValue(forKey: device)!
            for item in lane.buffer.items { buffer.push(item) }
            for timer in lane.timers.items { timers.push(timer) }
            release(upTo: watermark)
            return
        }
        releaseBehind(device, upTo: lanes[device]!.watermark(floor: floor, lateness: lateness))
    }

    private func late(_ input: InputEvent, newest: Int64, device: String?) -> PresenceError {
        let by = Timestamp(milliseconds: newest - input.time.milliseconds).durationText
        let allowed = Timestamp(milliseconds: settings.maxLatenessMilliseconds).durationText
        let reference = Timestamp(milliseconds: newest)
        if let device {
            return PresenceError("event time \(input.time) is \(by) before the newest event time of device \"\(device)\", \(reference), more than the allowed lateness of \(allowed); sort the device's input by time or raise --max-lateness")
        }
        if !lanesPerDevice {
            return PresenceError("event time \(input.time) is \(by) before the newest event time \(reference), more than the allowed lateness of \(allowed); exclusive zones by beacon compare the scanners (devices) at the same moment, so their input must be in time order across devices: sort it by time (files of one scanner each: merge them by time), or raise --max-lateness to how far the input goes back, which holds that much input in memory")
        }
        return PresenceError("event time \(input.time) is \(by) before the newest event time \(reference), more than the allowed lateness of \(allowed); sort the input by time or raise --max-lateness")
    }

    /// End of input: everything buffered is processed, then pending exits (and dwells before them)
    /// are resolved as of the last event time plus `exitTimeout`: the stream's, then each lane's
    /// still behind, as of its own.
    public mutating func finish() {
        release(upTo: Int64.max)
        if newestTime != Int64.min { fireTimers(through: newestTime &+ settings.exitTimeoutMilliseconds) }
        for device in lanes.keys.sorted() {
            releaseBehind(device, upTo: Int64.max)
            fireBehind(device, through: lanes[device]!.newest &+ settings.exitTimeoutMilliseconds)
        }
    }

    /// Moves time on without input (a server's wall clock): buffered input up to `time` is processed
    /// and timers due by then fire.
    public mutating func advance(to time: Int64) {
        newestTime = Swift.max(newestTime, time)
        floor = Swift.max(floor, time)
        release(upTo: watermark)
        fireTimers(through: watermark)
        for device in lanes.keys.sorted() {
            let limit = lanes[device]!.watermark(floor: floor, lateness: settings.maxLatenessMilliseconds)
            releaseBehind(device, upTo: limit)
            fireBehind(device, through: limit)
        }
        if sweepNext != nil || pairCount >= sweepAt {
            forgetIdlePairs(at: watermark, limit: addedSinceAdvance > 0 ? Self.sweptPerInput &* addedSinceAdvance : Self.sweepStep)
        }
        addedSinceAdvance = 0
    }

    /// The outputs produced so far, in order; the layer forgets them.
    public mutating func take() -> [PresenceOutput] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    private mutating func release(upTo limit: Int64) {
        while let next = buffer.min, next.time <= limit {
            _ = buffer.pop()
            process(next)
        }
    }

    private mutating func releaseBehind(_ device: Int, upTo limit: Int64) {
        while let next = lanes[device]!.buffer.min, next.time <= limit {
            _ = lanes[device]!.buffer.pop()
            process(next)
        }
    }

    /// Timers due strictly before `time` fire first, so an event at exactly a timeout still counts
    /// (a re-enter at exit + exitTimeout continues the stay).
    private mutating func fireTimers(before time: Int64, device: Int) {
        guard time != Int64.min else { return }
        if !lanes.isEmpty && lanes[device] != nil { fireBehind(device, through: time - 1) } else { fireTimers(through: time - 1) }
    }

    private mutating func fireTimers(through time: Int64) {
        while let timer = timers.min, timer.due <= time {
            _ = timers.pop()
            fire(timer)
        }
        clock = Swift.max(clock, time)
    }

    private mutating func fireBehind(_ device: Int, through time: Int64) {
        while let timer = lanes[device]!.timers.min, timer.due <= time {
            _ = lanes[device]!.timers.pop()
            fire(timer)
        }
    }

    private mutating func fire(_ timer: Timer) {
        // Set for a pair forgotten since (its slot free, or another pair's now).
        guard serials[timer.key] == timer.serial else { return }
        if scheduledAt[timer.key] == timer.due { scheduledAt[timer.key] = Int64.max }
        clock = Swift.max(clock, timer.due)
        resolve(timer.key, clock: timer.due)
    }

    private mutating func process(_ item: Buffered) {
        let input = item.input
        let t = item.time
        let key = PresenceKey(of: input)
        fireTimers(before: t, device: item.device)
        clock = Swift.max(clock, t)
        let index = slot(for: key)
        trackers[index].lastInput = Swift.max(trackers[index].lastInput, t)
        if case .sighting(let s, _) = input, zones != nil {
            place(s, pair: index, at: t)
            return
        }
        let change: PresenceTracker.Change?
        switch input {
        case .beacon(let e): change = trackers[index].given(e)
        case .sighting(let s, _): change = trackers[index].sighting(s, settings: settings)
        }
        if let change {
            if case .enter = change { trackers[index].scheduleDwells(dwells(for: key.beacon)) }
            emit(change, key: index)
        }
        resolve(index, clock: t)
    }

    /// A sighting under exclusive zones: its pair's gate hears it, and the subject's zone decides
    /// which room it is in; the stay of the room it leaves ends at once.
    private mutating func place(_ s: Sighting, pair index: Int, at t: Int64) {
        let zone = zones!.zoneOf[index]
        if zones!.hear(s, pair: index, settings: settings) && zones!.zones[zone].present == index {
            trackers[index].extend(id: s.id, at: t)
        }
        switch zones!.decide(zone: zone, at: t, settings: settings) {
        case .stay: break
        case .enter(let pair): admit(pair, id: s.id, at: t)
        case .move(let from, let to):
            if let change = trackers[from].leave(at: t) { emit(change, key: from) }
            admit(to, id: s.id, at: t)
        }
        resolve(index, clock: t)
    }

    private mutating func admit(_ pair: Int, id: String, at t: Int64) {
        let change = trackers[pair].admit(id: id, at: t)
        trackers[pair].scheduleDwells(dwells(for: pairKeys[pair].beacon))
        emit(change, key: pair)
        resolve(pair, clock: t)
    }

    private mutating func resolve(_ index: Int, clock: Int64) {
        changes.removeAll(keepingCapacity: true)
        trackers[index].resolve(clock: clock, exitTimeout: settings.exitTimeoutMilliseconds, into: &changes)
        for change in changes {
            if case .exit = change { zones?.ended(pair: index) }
            emit(change, key: index)
        }
        if let due = trackers[index].nextDue(exitTimeout: settings.exitTimeoutMilliseconds), due < scheduledAt[index] {
            scheduledAt[index] = due
            schedule(Timer(due: due, serial: serials[index], key: index))
        }
    }

    /// A timer goes to the stream, or to the lane of its device while that is behind.
    private mutating func schedule(_ timer: Timer) {
        if !lanes.isEmpty, let device = deviceIndex[pairKeys[timer.key].device], lanes[device] != nil {
            lanes[device]!.timers.push(timer)
        } else {
            timers.push(timer)
        }
    }

    private mutating func emit(_ change: PresenceTracker.Change, key index: Int) {
        let key = pairKeys[index]
        let locale = trackers[index].locale
        switch change {
        case .enter(let id, let time):
            outputs.append(.enter(BeaconEvent(id: id, device: key.device, kind: .enter, beacon: key.beacon, time: Timestamp(milliseconds: time), locale: locale)))
        case .exit(let id, let time, let departedAt):
            outputs.append(.exit(BeaconEvent(id: id, device: key.device, kind: .exit, beacon: key.beacon, time: Timestamp(milliseconds: time), locale: locale), departedAt: Timestamp(milliseconds: departedAt)))
        case .dwell(let id, let time, let dwell):
            outputs.append(.dwell(BeaconEvent(id: id, device: key.device, kind: .enter, beacon: key.beacon, time: Timestamp(milliseconds: time), locale: locale), dwellMilliseconds: dwell))
        }
    }

    private mutating func slot(for key: PresenceKey) -> Int {
        if let index = slot(of: key) { return index }
        return addPair(key, PresenceTracker(settings: settings))
    }

    /// Puts a new pair in a free slot (else a new one), next in the order first seen.
    @discardableResult
    mutating func addPair(_ key: PresenceKey, _ tracker: PresenceTracker) -> Int {
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
            pairKeys[index] = key
            trackers[index] = tracker
            serials[index] = nextSerial
            scheduledAt[index] = Int64.max
        } else {
            index = pairKeys.count
            pairKeys.append(key)
            trackers.append(tracker)
            serials.append(nextSerial)
            scheduledAt.append(Int64.max)
        }
        nextSerial += 1
        keyIndex.insert(NumberedKeySlot(hash: Self.hash(key), number: index))
        zones?.add(key, pair: index, settings: settings)
        return index
    }

    /// Every (device, beacon) pair held, in the order first seen.
    public var keys: [PresenceKey] { pairsInOrder.map { pairKeys[$0] } }

    /// The slots holding pairs, in the order the pairs were first seen.
    var pairsInOrder: [Int] {
        serials.indices.filter { serials[$0] >= 0 }.sorted { serials[$0] < serials[$1] }
    }

    private mutating func dwells(for beacon: BeaconID) -> [Int64] {
        if let known = dwellLengths[beacon] { return known }
        let lengths = campaigns.dwellLengths(for: beacon)
        dwellLengths[beacon] = lengths
        return lengths
    }

    /// Swaps in a new campaign set (a reload): open stays go on; dwells already scheduled keep their lengths.
    public mutating func replaceCampaigns(_ campaigns: CampaignSet) {
        self.campaigns = campaigns
        dwellLengths = [:]
    }

    /// Rebuilds the zones from the trackers (after a restore): a subject is in the room whose stay
    /// is open; the hearing gates start empty and fill within one smoothing window.
    mutating func rebuildZones() {
        guard let subject = settings.exclusiveZones else { return }
        var rebuilt = ExclusiveZones(subject: subject)
        for index in pairsInOrder {
            let key = pairKeys[index]
            rebuilt.add(key, pair: index, settings: settings)
            let zone = rebuilt.zoneOf[index]
            if trackers[index].isInside && rebuilt.zones[zone].present == nil { rebuilt.zones[zone].present = index }
        }
        zones = rebuilt
    }

    /// Rebuilds the timers from the trackers (after a restore), on the stream or their device's lane.
    mutating func rebuildTimers() {
        timers = MinHeap<Timer>()
        for device in lanes.keys { lanes[device]!.timers = MinHeap<Timer>() }
        scheduledAt = Array(repeating: Int64.max, count: trackers.count)
        for index in pairsInOrder {
            _ = register(pairKeys[index].device)
            if let due = trackers[index].nextDue(exitTimeout: settings.exitTimeoutMilliseconds) {
                scheduledAt[index] = due
                schedule(Timer(due: due, serial: serials[index], key: index))
            }
        }
    }

    /// Whether anything is pending: an open stay, or buffered input.
    public var isIdle: Bool { buffer.isEmpty && !lanes.values.contains { !$0.buffer.isEmpty } && !trackers.contains { $0.isInside } }

    /// The tracker of `key`, if it was ever seen.
    package func tracker(_ key: PresenceKey) -> PresenceTracker? {
        slot(of: key).map { trackers[$0] }
    }
}

extension Timestamp {
    /// A duration in milliseconds as short text: `30 s`, `1.5 s`, `2 min 5 s`.
    var durationText: String {
        let ms = milliseconds
        if ms % 1000 != 0 { return "\(Double(ms) / 1000) s" }
        let s = ms / 1000
        if s >= 60 { return s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s" }
        return "\(s) s"
    }
}
