package import BeaconRules

/// The id given to an event that arrives on a connection without its own `id`.
///
/// `replay` uses `SOURCE:LINE`, but a connection's line numbers start again after a reconnect, so
/// they cannot tell a resent event from a new one. The id is derived from what the event says
/// instead (device, type, beacon, time, locale): the same event resent after a crash gets the same
/// id and so the same answer. Two events that say exactly the same thing are taken as one.
/// Clients that need their own ids in the records should send `id`.
package enum EventIdentity {
    /// `input` with its content-derived id in place of the empty one it was parsed with.
    package static func identified(_ input: InputLine) -> InputLine {
        switch input {
        case .beacon(var event):
            event.id = id(of: event)
            return .beacon(event)
        case .response(var response):
            response.id = id(of: response)
            return .response(response)
        case .sighting(var sighting, let typeColumn):
            sighting.id = id(of: sighting)
            return .sighting(sighting, typeColumn: typeColumn)
        }
    }

    /// `auto-` and 32 hex digits: a 128-bit FNV-1a hash of the event's fields.
    package static func id(of event: BeaconEvent) -> String {
        id(device: event.device, type: event.kind.name, beacon: event.beacon, time: event.time, locale: event.locale)
    }

    /// The same for a sighting; its RSSI is part of what it says.
    package static func id(of sighting: Sighting) -> String {
        id(device: sighting.device, type: "sighting\u{0}" + String(sighting.rssi), beacon: sighting.beacon, time: sighting.time, locale: sighting.locale)
    }

    private static func id(device: String, type: String, beacon: BeaconID, time: Timestamp, locale: String?) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(device.utf8.count + 96)
        bytes.append(contentsOf: device.utf8)
        bytes.append(0)
        bytes.append(contentsOf: type.utf8)
        bytes.append(0)
        beacon.appendPid(to: &bytes)
        bytes.append(0)
        bytes.append(contentsOf: String(time.milliseconds).utf8)
        bytes.append(0)
        if let locale {
            // `de_AT` and `de-at` name the same language, so they must not make two events.
            for byte in locale.utf8 {
                bytes.append(byte == 0x5F ? 0x2D : (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte))
            }
        } else {
            bytes.append(1)
        }
        return autoID(bytes)
    }

    /// A response's id from what it says (device, record, action, button, time, and the text
    /// typed when there is one): a resent response gets the same id, and so the same answer.
    package static func id(of response: ResponseEvent) -> String {
        var bytes: [UInt8] = [0x72] // `r`: a response never shares an id with an event
        var parts = [response.device, response.notification, response.action.rawValue, response.actionId ?? "", String(response.time.milliseconds)]
        // Only when given, so that the ids of responses without text stay what they were.
        if let text = response.text { parts.append(text) }
        for part in parts {
            bytes.append(0)
            bytes.append(contentsOf: part.utf8)
        }
        return autoID(bytes)
    }

    private static func autoID(_ bytes: [UInt8]) -> String {
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
