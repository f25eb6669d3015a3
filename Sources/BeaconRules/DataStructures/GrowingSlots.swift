/// A slot of a `GrowingSlots` table: a key's hash and what the table's owner keeps with it, or
/// one of two markers, `empty` (no key ever sat here in this table) and `removed` (a key left a
/// table that is being emptied; it only ever appears there).
package protocol GrowingSlot: Sendable {
    /// The hash the slot's home is taken from (its low bits).
    var hash: UInt64 { get }
    /// No key: a probe stops here.
    var isEmpty: Bool { get }
    /// A key removed from the table being emptied: a probe goes on past it.
    var isRemoved: Bool { get }
    static var empty: Self { get }
    static var removed: Self { get }
}

/// The slots of an open-addressing table (linear probing from the slot the hash's low bits name,
/// power-of-two sizes, at most 5/8 full) that grows without a pause: doubling a table of a
/// million keys at once (a new array, every key put again, the old array freed) held the owner
/// of a table for tens of milliseconds, so here the doubling is spread over the inserts and
/// removals that come after, and no table is one allocation.
///
/// - A table's slots are in chunks of at most 16,384 (`Table`), each allocated and freed on its
///   own: the kernel is never asked to map or to take back tens of megabytes at once.
/// - From the moment the table is half full, each insert fills 16 slots of the next table (twice
///   the size) with `empty`, so that the next table is ready, its memory touched a piece at a
///   time, by the time this one is 5/8 full.
/// - Then the next table takes the keys' inserts, and the old one is emptied into it 8 slots per
///   insert or removal, from its first slot on, each chunk freed once passed. Until it is, a
///   lookup that misses the new table looks in the old one from `moved` on (a probe run that
///   reaches the slots already moved goes on at `moved`: those slots were never empty); a removal
///   there leaves a `removed` marker (the old table is never changed otherwise, so its probe runs
///   stay whole).
///
/// Every key is in exactly one of the two tables. The old table is gone after 1/16 of the new
/// table's size in inserts and removals, long before the new one is half full, so there are never
/// more than two. In the new table a removal moves back the slots after it in its probe run (no
/// tombstone). Lookups cost one probe run, and a second only while a doubling is under way (for
/// keys the first does not find).
package struct GrowingSlots<Slot: GrowingSlot>: Sendable {
    /// Where a key was found: a slot of the table (`old` false) or of the table being emptied.
    package struct Place: Equatable, Sendable {
        var old: Bool
        var index: Int
    }

    /// A table's slots, in chunks of at most 16,384 (`ChunkedArray`).
    struct Table: Sendable {
        var slots: ChunkedArray<Slot>
        /// The slot count - 1 (a power of two - 1); -1 for no table.
        var mask = -1

        static var largestChunkShift: Int { 14 }

        /// An empty table of `size` slots, none filled yet (`fill`).
        init(reserving size: Int) {
            mask = size - 1
            slots = ChunkedArray(shift: Swift.min(size.trailingZeroBitCount, Self.largestChunkShift))
        }

        init() { slots = ChunkedArray(shift: 1) }

        var size: Int { mask + 1 }
        var chunkSize: Int { slots.chunkSize }
        var shift: Int { slots.shift }
        /// Slots filled so far (a table being prepared is full at `size`).
        var filled: Int { slots.count }

        /// Slot `i` (below `size`: a table in use is filled).
        subscript(i: Int) -> Slot {
            @inline(__always) get { slots.unchecked(i) }
            @inline(__always) set { slots[i] = newValue }
        }

        /// Fills the next `n` slots with `empty`.
        mutating func fill(_ n: Int) { slots.append(repeating: Slot.empty, count: n) }
    }

    /// The table keys are inserted into.
    private var table: Table
    /// The table before the last doubling, being emptied into `table` (size 0 when none).
    private var old = Table()
    /// The slots of `old` below this are moved (their chunks freed): lookups there start at it.
    private var moved = 0
    /// The next table, being filled with `empty` (size 0 when not begun).
    private var next = Table()
    /// Keys held, in both tables.
    package private(set) var count = 0

    /// Slots of the old table moved per insert or removal.
    static var movesPerStep: Int { 8 }
    /// Slots of the next table filled per insert.
    static var preparedPerInsert: Int { 16 }

    /// Room for `count` keys before the first doubling begins (at least 1,024 slots).
    package init(minimumCapacity count: Int = 0) {
        var size = 1024
        while size < count * 2 { size *= 2 }
        table = Table(reserving: size)
        table.fill(size)
    }

    /// Whether a doubling is under way: the next table is being filled, or the old one emptied.
    package var isGrowing: Bool { old.size > 0 || next.size > 0 }

    /// The slot count of the table keys go to.
    package var capacity: Int { table.size }

    /// The first slot from the home of `hash` that `matches`, in the table and then in the old
    /// one; nil when none does. `matches` sees only slots holding keys.
    @inline(__always)
    package func find(hash: UInt64, where matches: (Slot) -> Bool) -> Slot? {
        if let i = Self.probe(table, hash: hash, matches) { return table[i] }
        if old.size == 0 { return nil }
        return probeOld(hash: hash, matches).map { old[$0] }
    }

    /// `find`, as a place that `self[place]` reads and changes and `remove(at:)` removes.
    @inline(__always)
    package func place(hash: UInt64, where matches: (Slot) -> Bool) -> Place? {
        if let i = Self.probe(table, hash: hash, matches) { return Place(old: false, index: i) }
        if old.size == 0 { return nil }
        return probeOld(hash: hash, matches).map { Place(old: true, index: $0) }
    }

    /// The slot at a place `place(hash:where:)` gave (and nothing changed since). A slot set
    /// here must keep its hash and hold a key.
    package subscript(place: Place) -> Slot {
        get { place.old ? old[place.index] : table[place.index] }
        set { if place.old { old[place.index] = newValue } else { table[place.index] = newValue } }
    }

    /// Linear probing from the home of `hash` in a table with no removed slot.
    @inline(__always)
    private static func probe(_ table: Table, hash: UInt64, _ matches: (Slot) -> Bool) -> Int? {
        let mask = table.mask
        return table.slots.withReader { slots in
            var i = Int(truncatingIfNeeded: hash) & mask
            while true {
                let slot = slots[i]
                if slot.isEmpty { return nil }
                if matches(slot) { return i }
                i = (i + 1) & mask
            }
        }
    }

    /// Linear probing in the table being emptied: removed slots are passed by, and a probe that
    /// reaches the slots already moved (gone) goes on at `moved` (they were all taken: a probe
    /// run through them goes on past them); a second time round, the key is not there.
    private func probeOld(hash: UInt64, _ matches: (Slot) -> Bool) -> Int? {
        var i = Int(truncatingIfNeeded: hash) & old.mask
        var wrapped = false
        while true {
            if i < moved { i = moved }
            let slot = old[i]
            if slot.isEmpty { return nil }
            if !slot.isRemoved && matches(slot) { return i }
            i += 1
            if i == old.size {
                if wrapped { return nil }
                wrapped = true
                i = 0
            }
        }
    }

    /// Reads the home slot of `hash` in the table and returns a word of it, changing nothing
    /// (see `NumberingTable.touch`).
    @inline(__always)
    package func touch(hash: UInt64) -> UInt64 {
        table[Int(truncatingIfNeeded: hash) & table.mask].hash
    }

    /// Adds a slot whose key is in neither table; a step of the doubling under way first.
    package mutating func insert(_ slot: Slot) {
        grow()
        Self.put(slot, into: &table)
        count += 1
    }

    /// Removes the key at `place` (found since the last change); then a step of the doubling.
    package mutating func remove(at place: Place) {
        if place.old {
            old[place.index] = Slot.removed
        } else {
            Self.remove(at: place.index, from: &table)
        }
        count -= 1
        if old.size > 0 { moveStep() }
    }

    /// Every slot holding a key, in no particular order.
    package func forEach(_ body: (Slot) -> Void) {
        for i in 0..<table.size where !table[i].isEmpty { body(table[i]) }
        if old.size > 0 {
            for i in moved..<old.size where !old[i].isEmpty && !old[i].isRemoved { body(old[i]) }
        }
    }

    /// The doubling's step before an insert: begin filling the next table once this one is half
    /// full, fill a piece of it, switch to it once full, and move a piece of the old table. Past
    /// 3/4 full with the next table not ready (never, by the counts above; kept as a bound) the
    /// doubling is done at once.
    private mutating func grow() {
        if old.size > 0 { moveStep() }
        let size = table.size
        let crowded = (count + 1) * 4 > size * 3
        if next.size == 0 {
            guard count + 1 > size / 2 else { return }
            if old.size > 0 {
                guard crowded else { return }
                while old.size > 0 { moveStep() }
            }
            next = Table(reserving: 2 * size)
        }
        next.fill(crowded ? next.size - next.filled : Swift.min(next.size - next.filled, Self.preparedPerInsert))
        if next.filled == next.size {
            while old.size > 0 { moveStep() }
            old = table
            moved = 0
            table = next
            next = Table()
        }
    }

    /// Moves the next `movesPerStep` slots of the old table into the table, freeing each chunk
    /// passed; drops the old table once all are moved.
    private mutating func moveStep() {
        let end = Swift.min(old.size, moved + Self.movesPerStep)
        while moved < end {
            let slot = old[moved]
            moved += 1
            if !slot.isEmpty && !slot.isRemoved { Self.put(slot, into: &table) }
            if moved & (old.chunkSize - 1) == 0 { old.slots.releaseChunk((moved - 1) >> old.shift) }
        }
        if moved == old.size {
            old = Table()
            moved = 0
        }
    }

    /// Puts `slot` in the first empty slot from its home.
    private static func put(_ slot: Slot, into table: inout Table) {
        var i = Int(truncatingIfNeeded: slot.hash) & table.mask
        while !table[i].isEmpty { i = (i + 1) & table.mask }
        table[i] = slot
    }

    /// Empties slot `i` and moves back the slots after it in its probe run that may not stay
    /// where they are (each must remain reachable from its home), so that no tombstone is needed.
    private static func remove(at i: Int, from table: inout Table) {
        let mask = table.mask
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            if table[j].isEmpty { break }
            let home = Int(truncatingIfNeeded: table[j].hash) & mask
            // The slot at j may move into the hole unless its home lies cyclically in (hole, j].
            let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !stays {
                table[hole] = table[j]
                hole = j
            }
        }
        table[hole] = Slot.empty
    }
}

/// A slot that holds a key's hash and the number its owner finds the key by (its place in the
/// owner's own storage, where the key is compared): -1 an empty slot, -2 a removed one. The
/// presence pairs' index and the in-memory answers are such tables.
package struct NumberedKeySlot: GrowingSlot {
    package static let empty = NumberedKeySlot(hash: 0, number: -1)
    package static let removed = NumberedKeySlot(hash: 0, number: -2)
    package var hash: UInt64
    package var number: Int
    package var isEmpty: Bool { number == -1 }
    package var isRemoved: Bool { number == -2 }

    package init(hash: UInt64, number: Int) {
        self.hash = hash
        self.number = number
    }
}

/// A map from 64-bit keys (hashes already, such as the delivery ledger's record id hashes) to
/// 32-bit values, in `GrowingSlots`: it grows without a pause. A slot is 16 bytes; its home comes
/// from the key mixed with a seed drawn once per process, so keys chosen to share their low bits
/// do not share a probe run.
struct GrowingIndex<Value: FixedWidthInteger & Sendable>: Sendable {
    private struct Slot: GrowingSlot {
        static var empty: Slot { Slot(key: 0, value: 0, state: 0) }
        static var removed: Slot { Slot(key: 0, value: 0, state: 2) }
        var key: UInt64
        var value: Value
        /// 0 empty, 1 a key, 2 removed.
        var state: UInt8
        var hash: UInt64 { GrowingIndexSeed.mix(key) }
        var isEmpty: Bool { state == 0 }
        var isRemoved: Bool { state == 2 }
    }

    private var slots = GrowingSlots<Slot>()

    init() {}

    /// Keys held.
    var count: Int { slots.count }
    var isEmpty: Bool { slots.count == 0 }

    /// Whether a doubling is under way (for tests).
    var isGrowing: Bool { slots.isGrowing }

    /// The key's value, nil when it is not held; setting nil removes the key.
    subscript(key: UInt64) -> Value? {
        get { slots.find(hash: GrowingIndexSeed.mix(key)) { $0.key == key }?.value }
        set {
            let place = slots.place(hash: GrowingIndexSeed.mix(key)) { $0.key == key }
            switch (place, newValue) {
            case (let place?, let value?): slots[place].value = value
            case (let place?, nil): slots.remove(at: place)
            case (nil, let value?): slots.insert(Slot(key: key, value: value, state: 1))
            case (nil, nil): break
            }
        }
    }

    /// Every key and its value, in no particular order.
    func forEach(_ body: (_ key: UInt64, _ value: Value) -> Void) {
        slots.forEach { body($0.key, $0.value) }
    }
}

/// The seed `GrowingIndex` mixes keys with, drawn once per process.
enum GrowingIndexSeed {
    static let seed = UInt64.random(in: 0...UInt64.max)

    /// A bijection of 64-bit words (the finalizer of SplitMix64) of the key and the seed.
    @inline(__always)
    static func mix(_ key: UInt64) -> UInt64 {
        var z = key ^ seed
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
