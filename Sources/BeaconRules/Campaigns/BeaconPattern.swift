/// One entry of a campaign's `beacons` list.
public enum BeaconPattern: Sendable, Equatable {
    /// A 42-char pid: that beacon exactly.
    case exact(BeaconID)
    /// A 32-char proximity UUID: every major and minor of it.
    case proximityUUID(ProximityUUID)
    /// A 14-char geofence id: kept, never matches a beacon event.
    case geofence(String)

    /// Reads a `beacons` entry; dashes are ignored and hex is compared case-insensitively.
    public init?(entry: String) {
        // A pid written without dashes (nearly every entry) is read in place.
        var text = entry
        if let id = text.withUTF8({ $0.count == 42 && !$0.contains(0x2D) ? BeaconID(pidBytes: $0) : nil }) {
            self = .exact(id)
            return
        }
        var compact: [UInt8] = []
        compact.reserveCapacity(42)
        for byte in entry.utf8 where byte != 0x2D { compact.append(byte) }
        let pattern: BeaconPattern? = compact.withUnsafeBufferPointer { bytes in
            switch bytes.count {
            case 42: return BeaconID(pidBytes: bytes).map(BeaconPattern.exact)
            case 32: return ProximityUUID(hex32: bytes).map(BeaconPattern.proximityUUID)
            case 14: return .geofence(String(decoding: bytes, as: UTF8.self))
            default: return nil
            }
        }
        guard let pattern else { return nil }
        self = pattern
    }

    /// Whether an event on `beacon` is one this entry lists: the same pid, or any major and minor
    /// of the UUID. A geofence matches no beacon.
    public func matches(_ beacon: BeaconID) -> Bool {
        switch self {
        case .exact(let id): id == beacon
        case .proximityUUID(let uuid): uuid == beacon.uuid
        case .geofence: false
        }
    }
}
