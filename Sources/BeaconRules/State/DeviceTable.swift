/// Device ids numbered densely (0, 1, 2...), found by their UTF-8 bytes: the in-memory store's
/// device numbers. Open addressing (linear probing, at most 5/8 full) that grows a few slots per
/// device added or removed (`GrowingSlots`), never all at once. A slot holds the id's hash,
/// its number and, for ids of at most 16 bytes, the bytes themselves as two words: a lookup reads
/// one slot and compares three words, and touches no `String` (a table of `String` keys copied one
/// out of the slot per probe). Longer ids are compared with `ids[number]`. Ids compare by their
/// bytes.
///
/// A device can be removed (its state all forgotten, SPEC section 5): its slot is emptied (the
/// slots after it in its probe run move back, so no tombstone is left) and its number is given to
/// the next device added, so the table holds the devices that have state, not every device seen.
struct DeviceTable: Sendable {
    private struct Slot: GrowingSlot {
        static let empty = Slot(hash: 0, number: 0, length: 0, low: 0, high: 0)
        static let removed = Slot(hash: 0, number: .max, length: 0, low: 0, high: 0)
        var hash: UInt64
        /// The number + 1; 0 is an empty slot, `.max` a removed one.
        var number: UInt32
        var length: UInt32
        /// The id's bytes, first byte lowest, zero after its end; for an id over 16 bytes, `low`
        /// is where its bytes start in `longIDs`.
        var low: UInt64
        var high: UInt64
        var isEmpty: Bool { number == 0 }
        var isRemoved: Bool { number == .max }
    }

    private var slots = GrowingSlots<Slot>()
    /// The ids by number; "" for a removed number not given out again yet. In chunks, so that a
    /// million ids are not copied when the array doubles.
    private(set) var ids = ChunkedArray<String>(shift: 14)
    /// Removed numbers, to be given out again (the last first).
    private var free: [UInt32] = []

    /// Devices in the table.
    var count: Int { ids.count - free.count }

    /// The id's number, nil when it was never added; `hash` is `String.fastHash(utf8:)` of `id`.
    @inline(__always)
    func find(utf8 id: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
        let (low, high) = Self.words(id)
        let length = UInt32(truncatingIfNeeded: id.count)
        let found = slots.find(hash: hash) { s in
            guard s.hash == hash && s.length == length else { return false }
            if id.count <= 16 { return s.low == low && s.high == high }
            return same(long: Int(s.number - 1), id)
        }
        return found.map { Int($0.number - 1) }
    }

    func number(_ id: String) -> Int? {
        var id = id
        return id.withUTF8 { find(utf8: $0, hash: String.fastHash(utf8: $0)) }
    }

    /// Reads the home slot of an id with hash `hash`, changing nothing (see `NumberingTable.touch`).
    @inline(__always)
    func touch(hash: UInt64) -> UInt64 { slots.touch(hash: hash) }

    /// Adds an id not in the table yet; returns its number: a removed one if any (the last
    /// removed first), else `ids.count` before.
    mutating func add(_ id: String) -> Int {
        let number: Int
        if let reused = free.popLast() {
            number = Int(reused)
            ids[number] = id
        } else {
            number = ids.count
            ids.append(id)
        }
        var text = id
        text.withUTF8 { bytes in
            var slot = Slot(hash: String.fastHash(utf8: bytes), number: UInt32(number + 1), length: UInt32(bytes.count), low: 0, high: 0)
            if bytes.count <= 16 { (slot.low, slot.high) = Self.words(bytes) }
            slots.insert(slot)
        }
        return number
    }

    /// Removes the device with this number (which must be in the table); its number is given to
    /// a later `add`.
    mutating func remove(number: Int) {
        var id = ids[number]
        let hash = id.withUTF8 { String.fastHash(utf8: $0) }
        let place = slots.place(hash: hash) { $0.number == UInt32(number + 1) }
        precondition(place != nil, "removing a device that is not in the table")
        slots.remove(at: place!)
        ids[number] = ""
        free.append(UInt32(number))
    }

    /// Whether the id with this number is `id` (lengths already equal).
    private func same(long number: Int, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        ids[number].utf8.withContiguousStorageIfAvailable { Self.same($0, id) }
            ?? Array(ids[number].utf8).withUnsafeBufferPointer { Self.same($0, id) }
    }

    /// The first 16 bytes as two words, first byte lowest, zero past the end (only an id of at
    /// most 16 bytes is compared by them). Read without touching a byte past the id.
    @inline(__always)
    static func words(_ id: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let n = id.count
        guard n > 0, let base = id.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(base)
        if n >= 16 {
            return (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        if n > 8 {
            // The last eight bytes end at the id's end; shift out those that belong to `low`.
            let last = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            return (raw.loadUnaligned(as: UInt64.self), last >> (8 * UInt64(16 - n)))
        }
        if n == 8 { return (raw.loadUnaligned(as: UInt64.self), 0) }
        var low: UInt64 = 0
        for k in 0..<n { low |= UInt64(id[k]) << (8 * UInt64(k)) }
        return (low, 0)
    }

    /// Whether two byte runs are equal, eight bytes at a time.
    @inline(__always)
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress.map(UnsafeRawPointer.init), let y = b.baseAddress.map(UnsafeRawPointer.init) else { return true }
        var i = 0
        while i + 8 <= a.count {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < a.count {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}
