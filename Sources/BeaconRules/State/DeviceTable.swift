/// Device ids numbered densely (0, 1, 2... in first-seen order) through an open-addressing table
/// of 32-byte slots that hold the id itself (one cache line read per lookup), hashed eight bytes
/// at a time: every event looks its device up here, and
/// Swift's `Dictionary<String, _>` spends more on SipHash than on the lookup itself.
struct DeviceTable: Sendable {
    private struct Slot: Sendable {
        var hash: UInt64
        /// The number + 1; 0 is an empty slot.
        var number: UInt32
        var id: String
    }

    private var slots: [Slot]
    private var mask: Int
    /// The ids by number.
    private(set) var ids: [String] = []

    init() {
        slots = Array(repeating: Slot(hash: 0, number: 0, id: ""), count: 1024)
        mask = slots.count - 1
    }

    var count: Int { ids.count }

    @inline(__always)
    static func hash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { bytes in
            var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
            guard let base = bytes.baseAddress else { return h }
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                h ^= h >> 32
                i += 8
            }
            if i < bytes.count {
                var last: UInt64 = 0
                var shift: UInt64 = 0
                while i < bytes.count {
                    last |= UInt64(bytes[i]) << shift
                    shift += 8
                    i += 1
                }
                h = (h ^ last) &* 0x9E37_79B9_7F4A_7C15
            }
            h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return h ^ (h >> 32)
        }
    }

    /// The id's number, nil when it was never added.
    @inline(__always)
    func number(_ id: String) -> UInt32? {
        let h = Self.hash(id)
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let slot = slots[i]
            if slot.number == 0 { return nil }
            if slot.hash == h && slot.id == id { return slot.number - 1 }
            i = (i + 1) & mask
        }
    }

    /// Adds an id that is not in the table yet; returns its number (`count` before).
    mutating func add(_ id: String) -> UInt32 {
        if (ids.count + 1) * 8 > slots.count * 5 { grow() }
        let number = UInt32(ids.count)
        ids.append(id)
        insert(Slot(hash: Self.hash(id), number: number + 1, id: id))
        return number
    }

    private mutating func insert(_ slot: Slot) {
        var i = Int(truncatingIfNeeded: slot.hash) & mask
        while slots[i].number != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(hash: 0, number: 0, id: ""), count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number != 0 { insert(slot) }
    }
}
