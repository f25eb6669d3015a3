public import BeaconRules

/// The id given to an event that arrives on a connection without its own `id`.
///
/// `replay` uses `SOURCE:LINE`, but a connection's line numbers start again after a reconnect, so
/// they cannot tell a resent event from a new one. The id is derived from what the event says
/// instead (device, type, beacon, time, locale): the same event resent after a crash gets the same
/// id and so the same answer. Two events that say exactly the same thing are taken as one.
/// Clients that need their own ids in the records should send `id`.
public enum EventIdentity {
    /// `auto-` and 32 hex digits: a 128-bit FNV-1a hash of the event's fields.
    public static func id(of event: BeaconEvent) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(event.device.utf8.count + 96)
        bytes.append(contentsOf: event.device.utf8)
        bytes.append(0)
        bytes.append(contentsOf: event.kind.name.utf8)
        bytes.append(0)
        event.beacon.appendPid(to: &bytes)
        bytes.append(0)
        bytes.append(contentsOf: String(event.time.milliseconds).utf8)
        bytes.append(0)
        if let locale = event.locale {
            // `de_AT` and `de-at` name the same language, so they must not make two events.
            for byte in locale.utf8 {
                bytes.append(byte == 0x5F ? 0x2D : (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte))
            }
        } else {
            bytes.append(1)
        }
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
        for byte in bytes {
            hash ^= UInt128(byte)
            hash &*= prime
        }
        let hex = String(hash, radix: 16)
        return "auto-" + String(repeating: "0", count: 32 - hex.count) + hex
    }
}
