/// One record the current event fires (`RulesEngine.match`): what the record writer, the ledger
/// and the presence layer read of it, without reading the rule again.
struct Firing {
    var fireDate: Int64
    var rank: Int32
    /// The rule's campaign index.
    var index: Int32
    /// The rule's campaign id slot: actions that share an eid fire once per event.
    var idSlot: Int32
    /// The rule's `isSilent` (the ledger skips silent records without reading the rule again).
    var isSilent: Bool
    /// The row's `keepsState`: the firing is remembered in the store.
    var keepsState: Bool
    /// Where the record's tail is in the tail cache, nil when it is not cached.
    var tail: StableByteArena.Reference? = nil
}
