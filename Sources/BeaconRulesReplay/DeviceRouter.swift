import BeaconRules
#if canImport(Glibc)
import Glibc
#endif

/// Which of `replay --jobs N`'s shards a line goes to: the same device always to the same shard
/// (suppression state and delivered notifications are kept per device, so shards never share
/// any). The key is the device id's bytes as decoded (the engine numbers devices by them).
///
/// A line that starts as the usual layout does (`{"id":"…","device":"…"`, no escape in the
/// device, none before the id's closing quote) has its device read in place, with no parse; any
/// other line is read in general by the reader (`LineIntake.readInGeneral`) and routed by what it holds.
/// This runs on the reader's thread for every line: it reads words, not bytes, where it can.
struct DeviceRouter {
    let shards: Int

    /// The shard of a device id's bytes: a hash of its 8-byte words, mixed so that ids that
    /// differ in one byte spread evenly (`t-dev-1`, `t-dev-2`, ...).
    func shard(_ device: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = device.baseAddress else { return shard(DeviceHash()) }
        var hash = DeviceHash()
        var at = 0
        while at + 8 <= device.count {
            hash.add(UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
            at += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while at < device.count {
            last |= UInt64(base[at]) << shift
            shift += 8
            at += 1
        }
        hash.end(last: last, count: device.count)
        return shard(hash)
    }

    /// A device's hash as it is read, eight bytes at a time (so that the reader can hash the
    /// device while it finds its end: `usualDevice`); the same bytes give the same hash either way.
    struct DeviceHash {
        var value: UInt64 = 0x9E37_79B9_7F4A_7C15

        /// The next eight bytes of the device (little-endian).
        @inline(__always) mutating func add(_ word: UInt64) {
            value = (value ^ word) &* 0xFF51_AFD7_ED55_8CCD
            value ^= value >> 32
        }

        /// The last bytes (fewer than eight, little-endian, zero above them) and the length.
        @inline(__always) mutating func end(last: UInt64, count: Int) {
            add(last)
            value ^= UInt64(truncatingIfNeeded: count)
        }
    }

    /// The shard of a device's finished hash.
    @inline(__always) func shard(_ hash: DeviceHash) -> Int {
        // MurmurHash3's finalizer: every input bit reaches the low bits the modulo reads.
        var hash = hash.value
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return Int(hash % UInt64(shards))
    }

    func shard(_ device: String) -> Int {
        var device = device
        return device.withUTF8 { shard($0) }
    }

    /// The device of a line that starts in the usual layout, read in place; nil: route the line
    /// by its general parse. Whichever parser reads such a line finds that device: it is the
    /// object's second member, with no escape in it. (A line that names `device` twice, where
    /// the last one counts, is refused by the shard that gets it if the two disagree.)
    static func usualDevice(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        usualDeviceHashed(line)?.device
    }

    /// The shard of a line in the usual layout, its device read (and hashed) in place; nil: route
    /// the line by its general parse.
    @inline(__always) func usualShard(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        Self.usualDeviceHashed(line).map { shard($0.hash) }
    }

    /// `usualDevice`, with the device's hash taken from the words the scan reads anyway.
    @inline(__always)
    static func usualDeviceHashed(_ line: UnsafeBufferPointer<UInt8>) -> (device: UnsafeBufferPointer<UInt8>, hash: DeviceHash)? {
        // `{"id":"` (7 bytes), then the id up to its quote, then `","device":"` (12 with that quote).
        guard line.count >= 24, let base = line.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        guard raw.loadUnaligned(as: UInt64.self) & 0x00FF_FFFF_FFFF_FFFF == Self.idKey else { return nil }
        guard let quote = memchr(raw + 7, 0x22, line.count - 7) else { return nil }
        let close = raw.distance(to: UnsafeRawPointer(quote))
        guard base[close - 1] != 0x5C, close + 12 < line.count,
              (raw + close).loadUnaligned(as: UInt64.self) == Self.deviceKeyHead,
              (raw + close + 8).loadUnaligned(as: UInt32.self) == Self.deviceKeyTail
        else { return nil }
        let start = close + 12
        var k = start
        var hash = DeviceHash()
        // Eight bytes at a time up to the word that holds a quote, a backslash or a control byte
        // (each flagged as a zero byte of the word xored with it, or a byte below 0x20: either
        // test may also flag a byte after the first hit, never miss one); then byte by byte.
        while k + 8 <= line.count {
            let word = (raw + k).loadUnaligned(as: UInt64.self)
            if Self.hasZeroByte(word ^ 0x2222_2222_2222_2222) | Self.hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C)
                | ((word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080) != 0 { break }
            hash.add(word)
            k += 8
        }
        // The device's last bytes (fewer than eight: a flagged word holds a real hit) start here.
        let tail = k
        while k < line.count {
            let byte = base[k]
            if byte == 0x22 {
                // `","type":"e` (`enter` or `exit`): responses and sightings take the general parse.
                guard k + 11 <= line.count,
                      (raw + k).loadUnaligned(as: UInt64.self) == Self.typeKeyHead,
                      (raw + k + 8).loadUnaligned(as: UInt16.self) == Self.typeKeyTail, base[k + 10] == 0x65
                else { return nil }
                // In bounds: eight bytes from `tail` end before the quote's `","type":"e`.
                guard k - tail < 8 else { return nil }
                hash.end(last: (raw + tail).loadUnaligned(as: UInt64.self) & ~(UInt64.max << (UInt64(k - tail) * 8)), count: k - start)
                return (UnsafeBufferPointer(start: base + start, count: k - start), hash)
            }
            if byte == 0x5C || byte < 0x20 { return nil }
            k += 1
        }
        return nil
    }

    /// The shard of a response: its device's. But a response about a record of another device
    /// (its `notification`, CAMPAIGN:DEVICE:EVENT, does not hold `:DEVICE:` for its own device)
    /// goes to the shard of the device the record names: that engine finds the record and
    /// refuses the response as one engine does ("was not delivered to device ..."), or finds
    /// none ("is not the id of a notification record ..."). The record's device lies between
    /// two of the id's colons; when the readings of a many-colon id go to different shards,
    /// the response goes to its own device's.
    func shard(for response: ResponseEvent) -> Int {
        let own = shard(response.device)
        let id = Array(response.notification.utf8)
        let named = Array((":" + response.device + ":").utf8)
        if id.count >= named.count, (0...(id.count - named.count)).contains(where: { id[$0..<($0 + named.count)].elementsEqual(named) }) {
            return own
        }
        let colons = id.indices.filter { id[$0] == 0x3A }.prefix(16)
        var target: Int?
        for (n, first) in colons.enumerated() {
            for second in colons.dropFirst(n + 1) {
                let candidate = id.withUnsafeBufferPointer { shard(UnsafeBufferPointer(rebasing: $0[(first + 1)..<second])) }
                if target == nil { target = candidate } else if target != candidate { return own }
            }
        }
        return target ?? own
    }

    /// Nonzero when some byte of `word` is zero (the high bit of the first such byte is set).
    @inline(__always) private static func hasZeroByte(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }

    /// `{"id":"` in the low 7 bytes of a little-endian word (constants, not `static let`s:
    /// those are looked up through `swift_once` on every line).
    @inline(__always) private static var idKey: UInt64 { 0x22_3A22_6469_227B }
    /// `","devic` and `e":"` (with the id's closing quote first).
    @inline(__always) private static var deviceKeyHead: UInt64 { 0x6369_7665_6422_2C22 }
    @inline(__always) private static var deviceKeyTail: UInt32 { 0x223A_2265 }
    /// `","type"` and `:"`, then `e`: `","type":"e` (11 bytes, the device's closing quote first).
    @inline(__always) private static var typeKeyHead: UInt64 { 0x2265_7079_7422_2C22 }
    @inline(__always) private static var typeKeyTail: UInt16 { 0x223A }
}

extension InputLine {
    /// The device the line is about.
    var device: String? {
        switch self {
        case .beacon(let event): event.device
        case .sighting(let sighting, _): sighting.device
        case .response(let response): response.device
        }
    }
}
