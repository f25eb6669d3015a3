/// The campaigns' rules as matching reads them: one `CandidateRow` per campaign (its store's key
/// `Key` in the row) and the timeframe bounds (`CampaignSet.frameBounds`), each copied once into
/// memory of its own that never moves (`PinnedBuffer`), which the table owns and hands out as
/// pointers: `match` and `prefetch` read the rows while the engine changes, and an array read
/// there was retained and released for every event.
///
/// Invariant: never written after init; `rows` and `frameBounds` stay valid as long as the table
/// (a copy of it included) lives, as it holds their owners.
struct RuleTable<Key> {
    /// One row per campaign, by campaign index. Rows of venue-wide and instant campaigns, which
    /// most events are candidates of, stay in cache.
    let rows: UnsafeBufferPointer<CandidateRow<Key>>
    /// Each rule's timeframes as (start, end) pairs, where `CandidateRow.framesStart` says.
    let frameBounds: UnsafeBufferPointer<Int64>
    private let rowStorage: PinnedBuffer<CandidateRow<Key>>
    private let boundsStorage: PinnedBuffer<Int64>

    /// The rows of `campaigns`' rules, each with `keys[idSlot]`, the store's key of its campaign id.
    init(_ campaigns: CampaignSet, keys: [Key]) {
        rowStorage = PinnedBuffer(campaigns.rules.map { CandidateRow($0, key: keys[Int($0.idSlot)], keepsState: campaigns.keepsState[Int($0.idSlot)]) })
        rows = rowStorage.elements
        boundsStorage = PinnedBuffer(campaigns.frameBounds)
        frameBounds = boundsStorage.elements
    }
}
