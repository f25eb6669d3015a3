/// A slot of a table that numbers its keys by hash (`NumberingTable`): the key's hash, and its
/// number + 1 (0: an empty slot).
protocol NumberedSlot {
    var hash: UInt64 { get }
    var number: UInt32 { get }
}

/// Insertion and growth of the open-addressing tables that only grow, with what is loaded or
/// deployed rather than with the stream (campaign ids, the beacons events name): linear probing from the slot the hash's
/// low bits name, `mask` being the slot count - 1 (a power of two). A table that grows with the
/// input (devices, answers) doubles without a pause instead (`GrowingSlots`).
enum LinearProbing {
    /// Puts `slot` in the first empty slot from its home.
    static func insert<Slot: NumberedSlot>(_ slot: Slot, into slots: inout [Slot], mask: Int) {
        var i = Int(truncatingIfNeeded: slot.hash) & mask
        while slots[i].number != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }

    /// Doubles the slots (`empty` fills the new ones) and puts every taken slot again.
    static func grow<Slot: NumberedSlot>(_ slots: inout [Slot], mask: inout Int, empty: Slot) {
        let old = slots
        slots = [Slot](repeating: empty, count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number != 0 { insert(slot, into: &slots, mask: mask) }
    }
}
