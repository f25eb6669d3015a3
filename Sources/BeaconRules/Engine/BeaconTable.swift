/// An open-addressing hash table from a beacon to a dense number (0, 1, 2... in insertion order)
/// and a 64-bit payload, 32 bytes a slot, a few multiplies to hash: the engine looks up every
/// event's beacon in it.
/// (Swift's `Dictionary` runs SipHash over the 20 bytes of a `BeaconID` per lookup.)
struct BeaconTable: Sendable {
    private struct Slot: Sendable {
        var high: UInt64
        var low: UInt64
        /// major << 16 | minor.
        var majorMinor: UInt32
        /// The number + 1; 0 is an empty slot.
        var number: UInt32
        var payload: UInt64
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var size = 16
        while size * 5 / 8 < capacity { size <<= 1 }
        slots = Array(repeating: Slot(high: 0, low: 0, majorMinor: 0, number: 0, payload: 0), count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func hash(_ beacon: BeaconID) -> UInt64 {
        let mm = UInt64(beacon.major) << 16 | UInt64(beacon.minor)
        var h = beacon.uuid.high &* 0x9E37_79B9_7F4A_7C15
        h ^= beacon.uuid.low &+ (h >> 29)
        h = (h ^ mm) &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 31)
    }

    /// The beacon's number and payload, nil when it was never added.
    @inline(__always)
    func find(_ beacon: BeaconID) -> (number: Int, payload: UInt64)? {
        let mm = UInt32(beacon.major) << 16 | UInt32(beacon.minor)
        return slots.withUnsafeBufferPointer { s in
            var i = Int(truncatingIfNeeded: Self.hash(beacon)) & mask
            while true {
                let slot = s[i]
                if slot.number == 0 { return nil }
                if slot.majorMinor == mm && slot.high == beacon.uuid.high && slot.low == beacon.uuid.low { return (Int(slot.number - 1), slot.payload) }
                i = (i + 1) & mask
            }
        }
    }

    /// Adds a beacon that is not in the table yet and returns its number (`count` before).
    mutating func add(_ beacon: BeaconID, payload: UInt64) -> Int {
        if (count + 1) * 8 > slots.count * 5 { grow() }
        let number = count
        insert(Slot(high: beacon.uuid.high, low: beacon.uuid.low, majorMinor: UInt32(beacon.major) << 16 | UInt32(beacon.minor), number: UInt32(number + 1), payload: payload))
        count += 1
        return number
    }

    private mutating func insert(_ slot: Slot) {
        let beacon = BeaconID(uuid: ProximityUUID(high: slot.high, low: slot.low), major: UInt16(slot.majorMinor >> 16), minor: UInt16(slot.majorMinor & 0xFFFF))
        var i = Int(truncatingIfNeeded: Self.hash(beacon)) & mask
        while slots[i].number != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(high: 0, low: 0, majorMinor: 0, number: 0, payload: 0), count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number != 0 { insert(slot) }
    }
}
