/// What `RulesEngine` works out about the event at hand and reuses for the next: kept in the
/// engine so that matching an event allocates nothing.
///
/// Invariant: about the current event only. `match` sets `beacon` and empties `pending` before
/// anything else, `dwell` is 0 except during a dwell event's call, and `candidates` is
/// meaningful only while `beacon` is -1; the arrays keep their capacity.
struct EventScratch {
    /// The event's firings, in record order once matched (the delivery ledger, the tail cache
    /// and the presence layer read them).
    var pending = FiringList()
    /// The event's beacon number in the `CandidateIndex`, -1 when it has none (the index is full).
    var beacon = -1
    /// The dwell length an enter is matched as (0: a plain enter). Dwell campaigns answer only
    /// dwell events of their length; other campaigns only plain enters.
    var dwell: Int64 = 0
    /// Candidates of an event whose beacon is not in the `CandidateIndex` (`beacon` -1).
    var candidates: [Int32] = []

    init() {
        candidates.reserveCapacity(16)
    }
}
