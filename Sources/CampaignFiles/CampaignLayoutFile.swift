package import BeaconRules

/// Writes campaigns back out as a Sensorberg layout (`beaconrules import`): the action objects as
/// read, indented so that a person can review and edit them.
package enum CampaignLayoutFile {
    /// `{"accountProximityUUIDs": [...], "actions": [...], "instantActions": [...]}`. The account
    /// UUIDs are the ones given, or else those the campaigns' beacons use, in order of appearance.
    package static func layout(for campaigns: [Campaign], accountProximityUUIDs: JSONValue? = nil) -> JSONValue {
        .makeObject([
            ("accountProximityUUIDs", accountProximityUUIDs ?? .makeArray(proximityUUIDs(of: campaigns).map { .string($0.description) })),
            ("actions", .makeArray(campaigns.filter { !$0.isInstant }.map(\.source))),
            ("instantActions", .makeArray(campaigns.filter(\.isInstant).map(\.source))),
        ])
    }

    /// The proximity UUIDs the campaigns' beacons use, each once, in order of appearance (a
    /// layout's `accountProximityUUIDs`, the UUIDs an SDK scans for).
    package static func proximityUUIDs(of campaigns: [Campaign]) -> [ProximityUUID] {
        var uuids: [ProximityUUID] = []
        var seen: Set<ProximityUUID> = []
        for campaign in campaigns {
            for pattern in campaign.beacons {
                let uuid: ProximityUUID
                switch pattern {
                case .exact(let id): uuid = id.uuid
                case .proximityUUID(let u): uuid = u
                case .geofence: continue
                }
                if seen.insert(uuid).inserted { uuids.append(uuid) }
            }
        }
        return uuids
    }

    /// JSON text with two-space indentation and a final newline; numbers stay as written.
    package static func text(_ value: JSONValue) -> String {
        var w = JSONWriter(capacity: 4096)
        write(value, indent: 0, into: &w)
        w.raw("\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, indent: Int, into w: inout JSONWriter) {
        let inner = String(repeating: "  ", count: indent + 1)
        switch value {
        case .array(let elements) where !elements.isEmpty:
            // Arrays of plain values (beacons, UUIDs) stay on one line; they read better that way.
            if elements.allSatisfy({ !$0.value.isContainer }) {
                w.value(value)
                return
            }
            w.raw("[")
            for (i, element) in elements.enumerated() {
                w.raw(i == 0 ? "\n" : ",\n")
                w.rawText(inner)
                write(element.value, indent: indent + 1, into: &w)
            }
            w.rawText("\n" + String(repeating: "  ", count: indent) + "]")
        case .object(let members) where !members.isEmpty:
            w.raw("{")
            for (i, member) in members.enumerated() {
                w.raw(i == 0 ? "\n" : ",\n")
                w.rawText(inner)
                w.string(member.key)
                w.raw(": ")
                write(member.value, indent: indent + 1, into: &w)
            }
            w.rawText("\n" + String(repeating: "  ", count: indent) + "}")
        default:
            w.value(value)
        }
    }
}

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}
