/// A key that hashes with a few multiplies: the engine's numbering tables look one up per event,
/// and Swift's seeded SipHash cost more than the lookup itself.
protocol FastHashable: Equatable, Sendable {
    var fastHash: UInt64 { get }
}

/// Keys numbered densely (0, 1, 2... in first-seen order), each with a 64-bit payload, in an
/// open-addressing table (linear probing, at most 5/8 full). A slot holds the key, its hash, its
/// number and its payload, so a lookup reads one slot. The engine numbers the beacons events name
/// (the payload says where their candidate lists are), the campaign set its exact beacons and
/// campaign ids. (Devices have a table of their own, `DeviceTable`.)
struct NumberingTable<Key: FastHashable>: Sendable {
    private struct Slot: NumberedSlot, Sendable {
        var hash: UInt64
        var payload: UInt64
        /// The number + 1; 0 is an empty slot.
        var number: UInt32
        var key: Key?
    }

    private var slots: [Slot]
    private var mask: Int
    /// The keys by number.
    private(set) var keys: [Key] = []

    init() { self.init(minimumCapacity: 0) }

    /// Room for `count` keys before the table grows (rehashing every key each time it doubles).
    init(minimumCapacity count: Int) {
        var size = 1024
        while size * 5 < count * 8 { size *= 2 }
        slots = Array(repeating: Slot(hash: 0, payload: 0, number: 0, key: nil), count: size)
        mask = size - 1
        keys.reserveCapacity(count)
    }

    var count: Int { keys.count }

    /// The key's number and payload, nil when it was never added.
    @inline(__always)
    func find(_ key: Key) -> (number: Int, payload: UInt64)? { find(key, hash: key.fastHash) }

    /// `find` with the key's `fastHash` already known.
    @inline(__always)
    func find(_ key: Key, hash h: UInt64) -> (number: Int, payload: UInt64)? {
        slots.withUnsafeBufferPointer { s in
            var i = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = s[i]
                if slot.number == 0 { return nil }
                if slot.hash == h && slot.key == key { return (Int(slot.number - 1), slot.payload) }
                i = (i + 1) & mask
            }
        }
    }

    /// The key's number, nil when it was never added.
    @inline(__always)
    func number(_ key: Key) -> Int? { find(key)?.number }

    /// Reads the home slot of a key with hash `hash` (`fastHash`) and returns a word of it,
    /// changing nothing. Issued for several keys in a tight loop, the loads are independent, so
    /// their cache misses overlap instead of following one another (Swift has no prefetch
    /// instruction; see `RulesEngine.prefetch`).
    @inline(__always)
    func touch(hash: UInt64) -> UInt64 {
        slots.withUnsafeBufferPointer { s in s[Int(truncatingIfNeeded: hash) & mask].hash }
    }

    /// Adds a key that is not in the table yet; returns its number (`count` before).
    mutating func add(_ key: Key, payload: UInt64 = 0) -> Int {
        if (keys.count + 1) * 8 > slots.count * 5 { grow() }
        let number = keys.count
        keys.append(key)
        insert(Slot(hash: key.fastHash, payload: payload, number: UInt32(number + 1), key: key))
        return number
    }

    private mutating func insert(_ slot: Slot) { LinearProbing.insert(slot, into: &slots, mask: mask) }

    private mutating func grow() {
        LinearProbing.grow(&slots, mask: &mask, empty: Slot(hash: 0, payload: 0, number: 0, key: nil))
    }
}

extension BeaconID: FastHashable {
    var fastHash: UInt64 {
        let majorMinor = UInt64(major) << 16 | UInt64(minor)
        var h = uuid.high &* 0x9E37_79B9_7F4A_7C15
        h ^= uuid.low &+ (h >> 29)
        h = (h ^ majorMinor) &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 31)
    }
}

extension String: FastHashable {
    /// The UTF-8 bytes eight at a time (`fastHash(utf8:)`).
    var fastHash: UInt64 {
        var text = self
        return text.withUTF8 { Self.fastHash(utf8: $0) }
    }

    /// The `fastHash` of the string with these UTF-8 bytes.
    @inline(__always)
    static func fastHash(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
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
