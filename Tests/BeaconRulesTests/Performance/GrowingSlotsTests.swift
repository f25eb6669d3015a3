@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `GrowingSlots`: an open-addressing table that doubles a few slots per insert or removal. While
/// a doubling is under way, keys live in two tables; whatever the mix of reads and writes, and
/// wherever the doubling is, the table answers as a plain dictionary does.
@Suite("GrowingSlots: a table that grows without a pause")
struct GrowingSlotsTests {
    /// A slot whose hash the test chooses, so that probe runs can be made long, crowded at the
    /// table's end (wrapping round to its start) or spread out.
    struct Slot: GrowingSlot {
        static let empty = Slot(hash: 0, key: -1, value: 0)
        static let removed = Slot(hash: 0, key: -2, value: 0)
        var hash: UInt64
        var key: Int
        var value: Int
        var isEmpty: Bool { key == -1 }
        var isRemoved: Bool { key == -2 }
    }

    /// A map from Int to Int over `GrowingSlots`, with the hash given by `hashing`.
    struct Map {
        var slots = GrowingSlots<Slot>()
        let hashing: (Int) -> UInt64

        subscript(key: Int) -> Int? {
            get { slots.find(hash: hashing(key)) { $0.key == key }?.value }
            set {
                let place = slots.place(hash: hashing(key)) { $0.key == key }
                switch (place, newValue) {
                case (let place?, let value?): slots[place].value = value
                case (let place?, nil): slots.remove(at: place)
                case (nil, let value?): slots.insert(Slot(hash: hashing(key), key: key, value: value))
                case (nil, nil): break
                }
            }
        }

        var contents: [Int: Int] {
            var all: [Int: Int] = [:]
            slots.forEach { all[$0.key] = $0.value }
            return all
        }
    }

    /// Hashes: spread out; all keys in 64 probe runs; every home in the table's last slots (each
    /// run wraps round to the first slots, where the doubling starts moving); and spread out but
    /// for one key in 32 at the table's end, in tables of many chunks (their first chunks freed
    /// while runs that wrap still reach them).
    static let hashings: [(name: String, hash: @Sendable (Int) -> UInt64)] = [
        ("spread", { UInt64(truncatingIfNeeded: $0) &* 0x9E37_79B9_7F4A_7C15 }),
        ("64 runs", { UInt64(truncatingIfNeeded: $0 % 64) &* 0x9E37_79B9_7F4A_7C15 }),
        ("at the end", { UInt64.max - UInt64(truncatingIfNeeded: $0 % 8) }),
        ("some at the end", { $0 % 32 == 0 ? UInt64.max - UInt64(truncatingIfNeeded: $0 % 5) : UInt64(truncatingIfNeeded: $0) &* 0x9E37_79B9_7F4A_7C15 }),
    ]

    /// Random inserts, updates, removals and lookups (inserts ahead, so that the table doubles
    /// several times, then as many removals, so that it empties while a doubling is under way)
    /// give the dictionary's answer at every step, and the same contents at the end.
    @Test(arguments: 0..<4)
    func answersAsADictionaryDoesThroughEveryDoubling(hashing: Int) {
        let (name, hash) = Self.hashings[hashing]
        var map = Map(hashing: hash)
        var model: [Int: Int] = [:]
        var generator = SeededRandom(seed: UInt64(hashing) + 7)
        var stepsWhileGrowing = 0, removalsWhileGrowing = 0
        let keyRange = name.hasSuffix("spread") || name.hasPrefix("some") ? 40_000 : 3_000
        for step in 0..<60_000 {
            let filling = step < 40_000
            let key = Int.random(in: 0..<keyRange, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4 where filling, 0..<2:
                map[key] = step
                model[key] = step
            case 4..<6 where filling, 2..<7:
                if map.slots.isGrowing && model[key] != nil { removalsWhileGrowing += 1 }
                map[key] = nil
                model[key] = nil
            default:
                #expect(map[key] == model[key], "\(name): key \(key) at step \(step)")
            }
            if map.slots.isGrowing { stepsWhileGrowing += 1 }
            #expect(map.slots.count == model.count)
            if step % 5_000 == 0 {
                for probe in 0..<keyRange where map[probe] != model[probe] {
                    Issue.record("\(name): key \(probe) reads \(String(describing: map[probe])), expected \(String(describing: model[probe])) at step \(step)")
                    break
                }
            }
        }
        #expect(map.contents == model)
        #expect(stepsWhileGrowing > 1_000, "the doublings were under way for \(stepsWhileGrowing) steps")
        #expect(removalsWhileGrowing > 10)
    }

    /// A table filled until a doubling is under way, then emptied key by key: each removal finds
    /// its key in whichever table holds it, and nothing is left; filled again, it answers anew.
    @Test func emptiedWhileDoublingItHoldsNothingAndFillsAgain() {
        var map = Map(hashing: Self.hashings[0].hash)
        var key = 0
        while !map.slots.isGrowing || map.slots.capacity < 4_096 {
            map[key] = key
            key += 1
        }
        // Keys in both tables: the old one is still being emptied.
        while map.slots.isGrowing && key % 50 != 0 {
            map[key] = key
            key += 1
        }
        for k in 0..<key {
            #expect(map[k] == k)
            map[k] = nil
            #expect(map[k] == nil)
        }
        #expect(map.slots.count == 0)
        #expect(map.contents.isEmpty)
        for k in 0..<10_000 { map[k] = -k }
        for k in 0..<10_000 { #expect(map[k] == -k) }
        #expect(map.slots.count == 10_000)
    }

    /// The next table is ready, and the old one emptied, long before either reaches its bound:
    /// the table never holds more than 5/8 of its slots, and never doubles all at once.
    @Test func neverFullerThanFiveEighths() {
        var map = Map(hashing: Self.hashings[0].hash)
        var doublings = 0
        var capacity = map.slots.capacity
        for key in 0..<200_000 {
            map[key] = key
            #expect(map.slots.count * 8 <= map.slots.capacity * 5)
            if map.slots.capacity != capacity {
                doublings += 1
                #expect(map.slots.capacity == 2 * capacity)
                capacity = map.slots.capacity
            }
        }
        #expect(doublings >= 8)
    }

    /// `GrowingIndex` (the delivery ledger's ids) reads and writes as a dictionary of the same
    /// keys and values does, keys sharing their low bits included.
    @Test func growingIndexIsADictionary() {
        var index = GrowingIndex<Int32>()
        var model: [UInt64: Int32] = [:]
        var generator = SeededRandom(seed: 32)
        var sawGrowing = false
        for step in 0..<80_000 {
            // Keys that differ only above bit 40: the index mixes them before taking a home.
            let key = UInt64(Int.random(in: 0..<30_000, using: &generator)) << 40 | 0xABCD
            if Int.random(in: 0..<4, using: &generator) == 0 {
                index[key] = nil
                model[key] = nil
            } else {
                index[key] = Int32(step)
                model[key] = Int32(step)
            }
            sawGrowing = sawGrowing || index.isGrowing
            #expect(index[key] == model[key])
        }
        var contents: [UInt64: Int32] = [:]
        index.forEach { contents[$0] = $1 }
        #expect(contents == model)
        #expect(index.count == model.count)
        #expect(sawGrowing)
    }
}
