/// An open-addressing hash table from a packed 64-bit key to a 64-bit value, 16 bytes a slot
/// (the record-tail cache: (campaign, language, trigger) to its range in the tail arena).
///
/// Swift's `Dictionary` hashes with SipHash and stores more per entry; this table uses one
/// multiply-shift hash and linear probing, and stays at most 5/8 full.
struct PackedTable: Sendable {
    private static let empty = UInt64.max
    private var keys: [UInt64]
    private var values: [Int64]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var size = 16
        while size * 5 / 8 < capacity { size <<= 1 }
        keys = [UInt64](repeating: Self.empty, count: size)
        values = [Int64](repeating: 0, count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 24) & mask
    }

    @inline(__always)
    func value(_ key: UInt64) -> Int64? {
        var i = slot(key)
        return keys.withUnsafeBufferPointer { k in
            while true {
                let found = k[i]
                if found == key { return values[i] }
                if found == Self.empty { return nil }
                i = (i + 1) & mask
            }
        }
    }

    mutating func set(_ key: UInt64, _ value: Int64) {
        if (count + 1) * 8 > keys.count * 5 { grow() }
        var i = slot(key)
        while true {
            let found = keys[i]
            if found == key { values[i] = value; return }
            if found == Self.empty {
                keys[i] = key
                values[i] = value
                count += 1
                return
            }
            i = (i + 1) & mask
        }
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: Self.empty, count: oldKeys.count * 2)
        values = [Int64](repeating: 0, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != Self.empty { set(k, v) }
    }

    func forEach(_ body: (UInt64, Int64) -> Void) {
        for (k, v) in zip(keys, values) where k != Self.empty { body(k, v) }
    }
}
