/// Each beacon seen in events, numbered, with its candidate campaigns (`CampaignSet.candidates`:
/// exact, UUID-wide and instant ones merged in load order), worked out once per beacon.
///
/// Invariant: a numbered beacon's run (its payload in `numbers`) names where its candidates are in
/// `lists`: those an enter can fire, then those an exit can fire, as start << 32 | enter count << 16
/// | exit count; `beaconRun` numbers a beacon only when both counts fit 16 bits and the lists stay
/// within `rowLimit`. Entries are appended, never changed, so a run stays true for the index's life.
struct CandidateIndex: Sendable {
    private(set) var numbers = NumberingTable<BeaconID>()
    /// Each numbered beacon's candidates (campaign indices) back to back: 4 bytes each, so an
    /// event's list is one cache line or two. Split by trigger, so the loop does not branch on
    /// the trigger unpredictably. Read through a pointer (`lists`): an array read in `match`,
    /// while the engine changes, was retained and released for every event.
    private var storage = ListStorage()
    /// The candidate lists, valid until the next beacon is numbered.
    var lists: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: storage.base, count: storage.count) }
    /// Beacons numbered, and candidates listed (4 bytes each), at most; past these (hostile
    /// input: endless made-up beacons of a UUID with venue-wide campaigns), candidates are worked
    /// out per event.
    /// Settable so that tests can drive every event down the per-event path.
    var beaconLimit = 1 << 20
    var rowLimit = 1 << 21

    /// Beacons numbered so far.
    var count: Int { numbers.count }

    /// Where an event of `kind` finds its candidates in `lists`, from its beacon's run.
    @inline(__always)
    static func range(_ run: UInt64, _ kind: EventKind) -> Range<Int> {
        let start = Int(run >> 32), enters = Int(run >> 16 & 0xFFFF), exits = Int(run & 0xFFFF)
        return kind == .enter ? start..<start + enters : start + enters..<start + enters + exits
    }

    /// The beacon's number and run, numbering it on first sight; nil past the limits (or a beacon
    /// with more than 65,535 candidates per trigger). `rows`: the campaigns' rows, for their triggers.
    @inline(__always)
    mutating func run<Key>(_ beacon: BeaconID, campaigns: CampaignSet, rows: UnsafeBufferPointer<CandidateRow<Key>>) -> (Int, UInt64)? {
        if let found = numbers.find(beacon) { return found }
        guard numbers.count < beaconLimit else { return nil }
        var list: [Int32] = []
        campaigns.candidates(for: beacon, into: &list)
        let enters = list.filter { rows[Int($0)].triggerMask & 1 != 0 }
        let exits = list.filter { rows[Int($0)].triggerMask & 2 != 0 }
        guard enters.count <= 0xFFFF, exits.count <= 0xFFFF,
              storage.count + enters.count + exits.count <= rowLimit else { return nil }
        let start = storage.count
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.append(enters)
        storage.append(exits)
        let run = UInt64(start) << 32 | UInt64(enters.count) << 16 | UInt64(exits.count)
        return (numbers.add(beacon, payload: run), run)
    }
}

/// The memory of `CandidateIndex`'s lists: appended to, never changed, moved when it grows.
///
/// `@unchecked Sendable`: it is written only through an index that holds the only reference to
/// it (`run` copies it first otherwise), so indexes on other threads only ever read it.
private final class ListStorage: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<Int32>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    func append(_ values: [Int32]) {
        if count + values.count > capacity {
            capacity = max(capacity * 2, count + values.count)
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
            bigger.initialize(from: base, count: count)
            base.deallocate()
            base = bigger
        }
        values.withUnsafeBufferPointer { if let start = $0.baseAddress { (base + count).initialize(from: start, count: values.count) } }
        count += values.count
    }

    /// A copy of its own (a copy of the index appends to it).
    func copy() -> ListStorage {
        let other = ListStorage(capacity: capacity)
        other.base.initialize(from: base, count: count)
        other.count = count
        return other
    }
}
