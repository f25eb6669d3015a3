@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `DeviceTable`: device ids numbered in first-seen order and found by their bytes, short ones
/// compared as two words in the slot, long ones with the id kept by number; removed ids are gone
/// and their numbers given again.
@Suite("Device ids numbered by their bytes")
struct DeviceTableTests {
    /// Ids of every length from 0 to 40 (both sides of 8 and 16 bytes), ids that are prefixes of
    /// one another or differ only in their last byte, non-ASCII ids, and enough of them that the
    /// table grows several times.
    static let ids: [String] = {
        var ids: [String] = []
        for n in 0...40 { ids.append(String(repeating: "d", count: n)) }
        for n in 1...40 { ids.append(String(repeating: "d", count: n - 1) + "e") }
        ids += ["Gerät-ü", "Gerät-u", "日本の端末", "dev-86747", "dev-86748", "dev-8674"]
        for k in 0..<5_000 { ids.append("device-\(k)") }
        return ids
    }()

    @Test func everyIdGetsItsNumberBackByBytesAndByText() {
        var table = DeviceTable()
        for (n, id) in Self.ids.enumerated() {
            #expect(table.number(id) == nil)
            #expect(table.add(id) == n)
        }
        #expect(table.count == Self.ids.count)
        for (n, id) in Self.ids.enumerated() {
            var text = id
            let byBytes = text.withUTF8 { table.find(utf8: $0, hash: String.fastHash(utf8: $0)) }
            #expect(byBytes == n, "\(id)")
            #expect(table.number(id) == n)
            #expect(table.ids[n] == id)
        }
        for unknown in ["dddddddddddddddddddddddddddddddddddddddddd", "devic", "device-5000", "Gerät-ä", "dev-86749"] {
            #expect(table.number(unknown) == nil, "\(unknown)")
        }
    }

    /// Two ids of up to 16 bytes are told apart by every byte, whatever the length.
    @Test func shortIdsAreComparedByEveryByte() {
        for n in 1...16 {
            let base = Array(repeating: UInt8(ascii: "a"), count: n)
            let (low, high) = base.withUnsafeBufferPointer { DeviceTable.words($0) }
            for k in 0..<n {
                var other = base
                other[k] = UInt8(ascii: "b")
                let words = other.withUnsafeBufferPointer { DeviceTable.words($0) }
                #expect(words.0 != low || words.1 != high, "length \(n), byte \(k)")
            }
        }
    }

    /// Removing ids (every third, then more) leaves every other id found under its number, in a
    /// table full of probe runs; new ids take the removed numbers, the last removed first.
    @Test func removedIdsAreGoneAndTheirNumbersGoToNewIds() {
        var table = DeviceTable()
        for id in Self.ids { _ = table.add(id) }
        var removed: [Int] = []
        for n in stride(from: 0, to: Self.ids.count, by: 3) {
            table.remove(number: n)
            removed.append(n)
        }
        #expect(table.count == Self.ids.count - removed.count)
        for (n, id) in Self.ids.enumerated() {
            #expect(table.number(id) == (n % 3 == 0 ? nil : n), "\(id)")
        }
        for (k, n) in removed.reversed().enumerated() {
            #expect(table.add("new-\(k)") == n)
        }
        #expect(table.count == Self.ids.count)
        for (k, _) in removed.enumerated() { #expect(table.number("new-\(k)") == removed[removed.count - 1 - k]) }
        for (n, id) in Self.ids.enumerated() where n % 3 != 0 { #expect(table.number(id) == n, "\(id)") }
        // Removing everything empties the table: nothing is found, and numbers start from the top.
        for n in 0..<Self.ids.count { table.remove(number: n) }
        #expect(table.count == 0)
        for id in Self.ids { #expect(table.number(id) == nil) }
    }

    /// Devices added and removed in a random mix while the table doubles (a few slots at a time,
    /// the ids in two tables meanwhile): every id held is found under its number, every id removed
    /// is gone, and numbers are given out again as before, last removed first.
    @Test func idsAddedAndRemovedWhileTheTableGrowsAreFoundAsBefore() {
        var table = DeviceTable()
        var model: [String: Int] = [:]
        var live: [String] = []
        var free: [Int] = []
        var next = 0
        var generator = SeededRandom(seed: 11)
        for step in 0..<40_000 {
            if Int.random(in: 0..<3, using: &generator) == 0, !live.isEmpty {
                let k = Int.random(in: 0..<live.count, using: &generator)
                let id = live[k]
                live.swapAt(k, live.count - 1)
                live.removeLast()
                let number = model[id]!
                table.remove(number: number)
                model[id] = nil
                free.append(number)
                #expect(table.number(id) == nil)
            } else {
                // Short and long ids (over 16 bytes are compared with the id kept by number).
                let id = step % 5 == 0 ? "a-long-device-identifier-\(step)" : "d\(step)"
                let expected = free.popLast() ?? { defer { next += 1 }; return next }()
                #expect(table.add(id) == expected)
                model[id] = expected
                live.append(id)
            }
            if step % 4_000 == 0 {
                for (id, number) in model { #expect(table.number(id) == number, "\(id) at step \(step)") }
            }
        }
        #expect(table.count == model.count)
        for (id, number) in model { #expect(table.number(id) == number, "\(id)") }
    }
}
