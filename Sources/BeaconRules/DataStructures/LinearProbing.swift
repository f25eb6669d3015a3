/// A slot of a table that numbers its keys by hash (`NumberingTable`, `DeviceTable`): the key's
/// hash, and its number + 1 (0: an empty slot).
protocol NumberedSlot {
    var hash: UInt64 { get }
    var number: UInt32 { get }
}

/// Insertion and growth shared by the open-addressing tables: linear probing from the slot the
/// hash's low bits name, `mask` being the slot count - 1 (a power of two).
enum LinearProbing {
    /// Puts `slot` in the first empty slot from its home.
    static func insert<Slot: NumberedSlot>(_ slot: Slot, into slots: inout [Slot], mask: Int) {
        var i = Int(truncatingIfNeeded: slot.hash) & mask
        while slots[i].number != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }

    /// Empties slot `i` and moves back the slots after it in its probe run that may not stay
    /// where they are (each must remain reachable from its home), so that no tombstone is needed.
    static func remove<Slot: NumberedSlot>(at i: Int, from slots: inout [Slot], mask: Int, empty: Slot) {
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            if slots[j].number == 0 { break }
            let home = Int(truncatingIfNeeded: slots[j].hash) & mask
            // The slot at j may move into the hole unless its home lies cyclically in (hole, j].
            let stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !stays {
                slots[hole] = slots[j]
                hole = j
            }
        }
        slots[hole] = empty
    }

    /// Doubles the slots (`empty` fills the new ones) and puts every taken slot again.
    static func grow<Slot: NumberedSlot>(_ slots: inout [Slot], mask: inout Int, empty: Slot) {
        let old = slots
        slots = [Slot](repeating: empty, count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number != 0 { insert(slot, into: &slots, mask: mask) }
    }
}
