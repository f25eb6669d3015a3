/// What the candidate loop reads of a campaign, in one small row (32 bytes with the in-memory
/// store's 4-byte keys): about ten candidates are decided per event, most of them the venue's
/// UUID-wide campaigns, so the rows of all campaigns should stay in the cache. The rule's rarely
/// set fields (delay, deliverAt, dwell) stay in the `CompiledRule`, read only when a flag says so.
struct CandidateRow<Key> {
    /// The state key of the rule's campaign id (`SuppressionStore.key(campaign:)`).
    var key: Key
    var idSlot: Int32
    var rank: Int32
    /// Suppression interval in ms, 0 for none.
    var interval: Int64
    var framesStart: Int32
    var framesCount: Int32
    /// Bit 0: enter, bit 1: exit.
    var triggerMask: UInt8
    private var flags: UInt8

    private static var keepsStateFlag: UInt8 { 1 }
    private static var onceOnlyFlag: UInt8 { 2 }
    private static var silentFlag: UInt8 { 4 }
    private static var dwellFlag: UInt8 { 8 }
    private static var timingFlag: UInt8 { 16 }

    init(_ rule: CompiledRule, key: Key, keepsState: Bool) {
        self.key = key
        idSlot = rule.idSlot
        rank = rule.rank
        interval = rule.interval
        framesStart = rule.framesStart
        framesCount = rule.framesCount
        triggerMask = rule.triggerMask
        flags = (keepsState ? Self.keepsStateFlag : 0) | (rule.onceOnly ? Self.onceOnlyFlag : 0)
            | (rule.isSilent ? Self.silentFlag : 0) | (rule.dwell != 0 ? Self.dwellFlag : 0)
            | (rule.delay > 0 || rule.deliverAt != Int64.min ? Self.timingFlag : 0)
    }

    /// `CampaignSet.keepsState` of the rule's campaign id: its firings are looked up and recorded.
    var keepsState: Bool { flags & Self.keepsStateFlag != 0 }
    var onceOnly: Bool { flags & Self.onceOnlyFlag != 0 }
    var isSilent: Bool { flags & Self.silentFlag != 0 }
    /// The rule waits for a dwell (`CompiledRule.dwell` is not 0).
    var waitsForDwell: Bool { flags & Self.dwellFlag != 0 }
    /// The rule has a delay or a deliverAt (`CompiledRule`).
    var hasTiming: Bool { flags & Self.timingFlag != 0 }

    /// The fire date (ms) if the rule fires at `time` given the device's last firing, else nil;
    /// `rule` is read only for a delay or a deliverAt. Must agree with
    /// `Campaign.verdictAfterMatch`; the reference-path test holds them together.
    @inline(__always)
    func fireDate(time: Int64, last: Int64?, bounds: UnsafeBufferPointer<Int64>, rule: () -> CompiledRule) -> Int64? {
        if framesCount > 0 {
            var i = Int(framesStart) * 2
            let end = i + Int(framesCount) * 2
            var live = false
            while i < end {
                if bounds[i] <= time && time < bounds[i + 1] { live = true; break }
                i += 2
            }
            if !live { return nil }
        }
        if let last {
            if onceOnly { return nil }
            if interval > 0 && time < last &+ interval { return nil }
        }
        guard hasTiming else { return time }
        let rule = rule()
        if rule.delay > 0 { return time &+ rule.delay }
        if rule.deliverAt != Int64.min {
            return time > rule.deliverAt ? nil : rule.deliverAt
        }
        return time
    }
}

