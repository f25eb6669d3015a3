/// A value per (campaign index, locale slot, trigger): the engine's record-tail index and the
/// ledger's record languages. Both are read once per record, and a stream's records name a
/// handful of locales: for the first `denseLocales` slots the value sits in a plain array per
/// slot, read with one load at a known place, instead of probed for in a hash table whose slots
/// are scattered over more memory than the cache holds. Later slots (a stream of many locales)
/// go to a `PackedTable`.
struct RuleLocaleTable: Sendable {
    static var denseLocales: Int { 16 }
    private static let absent = Int64.min

    /// Campaign indices are below this.
    let rules: Int
    /// Per locale slot below `denseLocales`, created when the slot is first set: two values per
    /// campaign (enter, exit), `absent` where none is set.
    private var dense: [[Int64]] = []
    private var sparse = PackedTable()

    init(rules: Int) { self.rules = rules }

    @inline(__always)
    func value(rule: Int, locale: UInt32, trigger: EventKind) -> Int64? {
        let l = Int(locale)
        if l < Self.denseLocales {
            guard l < dense.count else { return nil }
            let v = dense[l].withUnsafeBufferPointer { $0.isEmpty ? Self.absent : $0[rule &* 2 &+ (trigger == .enter ? 0 : 1)] }
            return v == Self.absent ? nil : v
        }
        return sparse.value(Self.key(rule, locale, trigger))
    }

    mutating func set(rule: Int, locale: UInt32, trigger: EventKind, _ value: Int64) {
        precondition(rule >= 0 && rule < rules && value != Self.absent)
        let l = Int(locale)
        if l < Self.denseLocales {
            while dense.count <= l { dense.append([]) }
            if dense[l].isEmpty { dense[l] = [Int64](repeating: Self.absent, count: rules * 2) }
            dense[l][rule * 2 + (trigger == .enter ? 0 : 1)] = value
        } else {
            sparse.set(Self.key(rule, locale, trigger), value)
        }
    }

    private static func key(_ rule: Int, _ locale: UInt32, _ trigger: EventKind) -> UInt64 {
        UInt64(rule) << 32 | UInt64(locale) << 1 | (trigger == .enter ? 0 : 1)
    }
}
