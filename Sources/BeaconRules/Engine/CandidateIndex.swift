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
    /// the trigger unpredictably.
    private(set) var lists: [Int32] = []
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
              lists.count + enters.count + exits.count <= rowLimit else { return nil }
        let start = lists.count
        lists.append(contentsOf: enters)
        lists.append(contentsOf: exits)
        let run = UInt64(start) << 32 | UInt64(enters.count) << 16 | UInt64(exits.count)
        return (numbers.add(beacon, payload: run), run)
    }
}
