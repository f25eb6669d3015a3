import BeaconRules

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
        let idKey: StaticString = #"{"id":""#
        let deviceKey: StaticString = #","device":""#
        let typeKey: StaticString = #","type":""#
        var at = 0
        guard literal(idKey, in: line, at: &at), let _ = string(in: line, at: &at),
              literal(deviceKey, in: line, at: &at), let device = string(in: line, at: &at),
              literal(typeKey, in: line, at: &at)
        else { return nil }
        let enter: StaticString = #"enter""#
        let exit: StaticString = #"exit""#
        var kind = at
        guard literal(enter, in: line, at: &kind) || literal(exit, in: line, at: &at) else { return nil }
        return device
    }

    /// Matches `text` at `at` and moves past it.
    private static func literal(_ text: StaticString, in line: UnsafeBufferPointer<UInt8>, at: inout Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard line.count - at >= count else { return false }
        let bytes = text.utf8Start
        for k in 0..<count where line[at + k] != bytes[k] { return false }
        at += count
        return true
    }

    /// A string's contents up to its closing quote (moved past), with no escape and no control
    /// character in it; nil otherwise.
    private static func string(in line: UnsafeBufferPointer<UInt8>, at: inout Int) -> UnsafeBufferPointer<UInt8>? {
        let start = at
        var k = at
        while k < line.count {
            let byte = line[k]
            if byte == 0x22 {
                at = k + 1
                return UnsafeBufferPointer(rebasing: line[start..<k])
            }
            if byte == 0x5C || byte < 0x20 { return nil }
            k += 1
        }
        return nil
    }
}
