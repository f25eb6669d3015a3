import BeaconRules
#if canImport(Glibc)
import Glibc
#endif

/// Which of `replay --jobs N`'s shards a line goes to: the same device always to the same shard
/// (suppression state and delivered notifications are kept per device, so shards never share
/// any). The key is the device id's bytes as decoded (the engine numbers devices by them).
///
/// A line in the usual layout of a beacon event (`{"id":"…","device":"…","type":"enter"` or
/// `"exit"`, no escapes in the two strings) has its device read in place, with no parse; any other
/// line is parsed in general by the reader (`Replay.parse`) and routed by what it holds.
struct DeviceRouter {
    let shards: Int

    /// The shard of a device id's bytes (FNV-1a, then the high bits mixed in).
    func shard(_ device: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash ^= hash >> 29
        return Int(hash % UInt64(shards))
    }

    func shard(_ device: String) -> Int {
        var device = device
        return device.withUTF8 { shard($0) }
    }

    /// The device of a beacon event in the usual layout, read in place; nil: route the line by
    /// its general parse. Any line this accepts has that device whichever parser reads it: the
    /// strings have no escapes, and they are the object's first two members.
    static func usualDevice(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = line.baseAddress else { return nil }
        let end = base + line.count
        var at = base
        guard literal(#"{"id":""#, at: &at, end: end), string(at: &at, end: end) != nil,
              literal(#","device":""#, at: &at, end: end), let device = string(at: &at, end: end),
              literal(#","type":""#, at: &at, end: end),
              literal(#"enter""#, at: &at, end: end) || literal(#"exit""#, at: &at, end: end)
        else { return nil }
        return device
    }

    /// Matches `text` at `at` and moves past it.
    @inline(__always)
    private static func literal(_ text: StaticString, at: inout UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) -> Bool {
        let count = text.utf8CodeUnitCount
        guard end - at >= count, memcmp(at, text.utf8Start, count) == 0 else { return false }
        at += count
        return true
    }

    /// A string's contents up to its closing quote (moved past), with no escape and no control
    /// character in it; nil otherwise.
    @inline(__always)
    private static func string(at: inout UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let start = at
        var k = at
        while k < end {
            let byte = k.pointee
            if byte == 0x22 {
                at = k + 1
                return UnsafeBufferPointer(start: start, count: k - start)
            }
            if byte == 0x5C || byte < 0x20 { return nil }
            k += 1
        }
        return nil
    }
}
