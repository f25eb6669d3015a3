/// Rendered record tails (see `RecordWriter`), each with its line's newline, kept by (campaign,
/// device locale slot, trigger) and by what makes a tail the same across locales (`tailShare` in
/// RulesEngine+Tails), with each campaign's payload as JSON.
///
/// Invariant: a tail once cached never changes or moves (it lives in `arena`), so a writer that
/// collects references points at it instead of copying ~1 KB per record; every number in `index`
/// and `shared` names an entry of `references`. Tails of `longest` bytes or more are not cached.
struct TailCache {
    /// Tails this long or longer are rendered per record.
    static var longest: Int { 1 << 16 }
    /// Where the tails' bytes are: what a writer's references point into.
    let arena = StableByteArena()
    /// Where tails are shared with engines that run beside this one (nil: none). Only misses
    /// go there: what is found is adopted into `arena` and kept in this cache.
    private let sharedWithOthers: SharedTails?
    /// Each cached tail, numbered in caching order.
    private var references: [StableByteArena.Reference] = []
    /// The number of the tail of each (campaign, locale slot, trigger) cached.
    private var index: RuleLocaleTable
    /// The number of the tail of each share key cached.
    private var shared: [UInt64: Int64] = [:]
    /// Each campaign's payload as JSON, written the first time one of its tails is rendered.
    private var payloads: [[UInt8]?]
    /// The ledger's `languageEpoch` under which the language of every cached tail was noted
    /// (nil: no tail cached yet; 0: some tail was cached without it, with the ledger off or
    /// another ledger cache). While it is the ledger's, a record with a cached tail has its
    /// language in the ledger, and `noteDeliveries` does not look it up.
    private(set) var languagesEpoch: UInt64?

    init(campaigns: Int, sharedWith others: SharedTails? = nil) {
        sharedWithOthers = others
        others?.register(arena)
        index = RuleLocaleTable(rules: campaigns)
        payloads = Array(repeating: nil, count: campaigns)
    }

    /// The cached tail of (campaign `rule`, locale slot `locale`, `trigger`).
    @inline(__always)
    func tail(rule: Int, locale: UInt32, trigger: EventKind) -> StableByteArena.Reference? {
        guard let number = index.value(rule: rule, locale: locale, trigger: trigger) else { return nil }
        return references[Int(number)]
    }

    /// Whether a tail is cached under `share`: here, or else by another engine (`SharedTails`),
    /// and then now here too.
    mutating func holds(share: UInt64) -> Bool {
        if shared[share] != nil { return true }
        guard let others = sharedWithOthers, let tail = others.tail(share) else { return false }
        shared[share] = Int64(references.count)
        references.append(arena.adopt(tail))
        return true
    }

    /// The tail cached under `share` (`holds(share:)`), now also the tail of (`rule`, `locale`, `trigger`).
    mutating func reuse(share: UInt64, rule: Int, locale: UInt32, trigger: EventKind, ledgerEpoch: UInt64) -> StableByteArena.Reference {
        let number = shared[share]!
        noteCached(ledgerEpoch: ledgerEpoch)
        index.set(rule: rule, locale: locale, trigger: trigger, number)
        return references[Int(number)]
    }

    /// Caches `tail` (shorter than `longest`) as the tail of (`rule`, `locale`, `trigger`) and of `share`.
    mutating func store(_ tail: [UInt8], rule: Int, locale: UInt32, trigger: EventKind, share: UInt64?, ledgerEpoch: UInt64) -> StableByteArena.Reference {
        precondition(tail.count < Self.longest)
        noteCached(ledgerEpoch: ledgerEpoch)
        let reference = tail.withUnsafeBufferPointer { arena.store($0) }
        let number = Int64(references.count)
        references.append(reference)
        index.set(rule: rule, locale: locale, trigger: trigger, number)
        if let share {
            shared[share] = number
            if let others = sharedWithOthers { arena.withChunks { others.publish(share, $0.bytes(reference)) } }
        }
        return reference
    }

    /// Keeps `languagesEpoch` true as a tail is cached (`ledgerEpoch`: the ledger's epoch, 0 with
    /// the ledger off): every cached tail's language is in the ledger as long as each was noted
    /// into the same ledger cache.
    private mutating func noteCached(ledgerEpoch epoch: UInt64) {
        if languagesEpoch == nil { languagesEpoch = epoch } else if languagesEpoch != epoch { languagesEpoch = 0 }
    }

    /// Campaign `campaign`'s payload as JSON, written by `write` the first time.
    mutating func payload(campaign: Int, _ write: () -> [UInt8]) -> [UInt8] {
        if let json = payloads[campaign] { return json }
        let json = write()
        payloads[campaign] = json
        return json
    }
}
