/// The current event's firings (`RulesEngine.match`), in memory the list owns and reaches through a
/// pointer: appending, reading and giving a firing its tail cost no uniqueness check, no reference
/// counting and no array bookkeeping (an `[Firing]` in the engine paid those on every event).
///
/// Invariant: the first `count` elements are initialized, in `base`, which `storage` owns. Every
/// event's writes start with `removeAll()`, which makes the memory this list's own when a copy of
/// the list (a copy of its engine) shares it, so copies stay values: what one writes, the other
/// never sees.
struct FiringList {
    /// Owns the memory (`Firing` is plain data: nothing to deinitialize).
    private final class Storage {
        let base: UnsafeMutablePointer<Firing>
        init(capacity: Int) {
            // Elements are copied as bytes and never deinitialized: `Firing` must stay plain data.
            precondition(_isPOD(Firing.self), "FiringList holds plain data only")
            base = .allocate(capacity: capacity)
        }
        deinit { base.deallocate() }
    }

    private var storage: Storage
    private var base: UnsafeMutablePointer<Firing>
    private var capacity: Int
    /// Firings listed.
    private(set) var count = 0

    init(capacity: Int = 16) {
        self.capacity = max(capacity, 1)
        storage = Storage(capacity: self.capacity)
        base = storage.base
    }

    var isEmpty: Bool { count == 0 }

    /// Empties the list for the next event.
    @inline(__always)
    mutating func removeAll() {
        count = 0
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(capacity: capacity)
            base = storage.base
        }
    }

    @inline(__always)
    mutating func append(_ firing: Firing) {
        if count == capacity { grow() }
        (base + count).initialize(to: firing)
        count += 1
    }

    private mutating func grow() {
        let bigger = Storage(capacity: capacity * 2)
        bigger.base.initialize(from: base, count: count)
        storage = bigger
        base = bigger.base
        capacity *= 2
    }

    /// The firing at `i` (`0..<count`).
    @inline(__always)
    subscript(i: Int) -> Firing {
        get {
            precondition(i >= 0 && i < count)
            return base[i]
        }
    }

    /// Gives the firing at `i` its cached tail.
    @inline(__always)
    mutating func setTail(_ tail: StableByteArena.Reference, at i: Int) {
        precondition(i >= 0 && i < count)
        base[i].tail = tail
    }

    /// Whether a firing of campaign id slot `idSlot` is listed.
    @inline(__always)
    func contains(idSlot: Int32) -> Bool {
        for i in 0..<count where base[i].idSlot == idSlot { return true }
        return false
    }

    /// Whether any firing listed is a notification (not silent).
    @inline(__always)
    var hasNotification: Bool {
        for i in 0..<count where !base[i].isSilent { return true }
        return false
    }

    /// Sorts the firings by fire date, then rank, then campaign index: an insertion sort, as an
    /// event fires a handful.
    @inline(__always)
    mutating func sort() {
        guard count > 1 else { return }
        let f = base
        for i in 1..<count {
            let x = f[i]
            var j = i
            while j > 0 && (x.fireDate, x.rank, x.index) < (f[j - 1].fireDate, f[j - 1].rank, f[j - 1].index) {
                f[j] = f[j - 1]
                j -= 1
            }
            f[j] = x
        }
    }
}
