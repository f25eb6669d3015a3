/// What the engine keeps to do less per event, each part a type with its invariant in its own
/// file: the beacons' candidate lists (`CandidateIndex`), rendered record tails (`TailCache`),
/// device locales numbered (`LocaleSlots`), the head runs and scratch records are joined with
/// (`RecordJoiner`), and what the last prefetch found (`PrefetchWindow`).
///
/// Invariant: caches only. Each part is worked out from the rules, or from what the store already
/// knew: worked out again from scratch, none of it would change a record or the state.
struct EngineCaches<DeviceKey> {
    var candidateIndex = CandidateIndex()
    var tails: TailCache
    var localeSlots = LocaleSlots()
    var recordJoiner: RecordJoiner
    var prefetched = PrefetchWindow<DeviceKey>()

    /// `sharedTails`: where engines of the same campaigns and locales that run side by side share
    /// the tails they render.
    init(_ campaigns: CampaignSet, sharedTails: SharedTails?) {
        tails = TailCache(campaigns: campaigns.campaigns.count, sharedWith: sharedTails)
        recordJoiner = RecordJoiner(campaigns)
    }
}
