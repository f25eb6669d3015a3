/// An open-addressing hash table from a packed 64-bit key to a 64-bit value, 16 bytes a slot
/// (the record-tail cache: (campaign, language, trigger) to its range in the tail arena).
///
/// Swift's `Dictionary` hashes with SipHash and stores more per entry; this table uses one
/// multiply-shift hash and linear probing, and stays at most 5/8 full.
struct PackedTable: Sendable {
    private static let empty = UInt64.max
    /// Key and value side by side: a lookup that misses the cache misses once.
    private struct Slot: Sendable {
        var key: UInt64
        var value: Int64
    }
    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var size = 16
        while size * 5 / 8 < capacity { size <<= 1 }
        slots = [Slot](repeating: Slot(key: Self.empty, value: 0), count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 24) & mask
    }

    @inline(__always)
    func value(_ key: UInt64) -> Int64? {
        var i = slot(key)
        return slots.withUnsafeBufferPointer { s in
            while true {
                let found = s[i]
                if found.key == key { return found.value }
                if found.key == Self.empty { return nil }
                i = (i + 1) & mask
            }
        }
    }

    mutating func set(_ key: UInt64, _ value: Int64) {
        if (count + 1) * 8 > slots.count * 5 { grow() }
        var i = slot(key)
        while true {
            let found = slots[i].key
            if found == key { slots[i].value = value; return }
            if found == Self.empty {
                slots[i] = Slot(key: key, value: value)
                count += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(key: Self.empty, value: 0), count: old.count * 2)
        mask = slots.count - 1
        count = 0
        for slot in old where slot.key != Self.empty { set(slot.key, slot.value) }
    }

    func forEach(_ body: (UInt64, Int64) -> Void) {
        for slot in slots where slot.key != Self.empty { body(slot.key, slot.value) }
    }
}
