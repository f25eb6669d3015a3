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
        let compact = String(String.UnicodeScalarView(entry.unicodeScalars.filter { $0 != "-" }))
        switch compact.utf8.count {
        case 42:
            guard let id = BeaconID(pid: compact) else { return nil }
            self = .exact(id)
        case 32:
            guard let uuid = ProximityUUID(text: compact) else { return nil }
            self = .proximityUUID(uuid)
        case 14:
            self = .geofence(compact)
        default:
            return nil
        }
    }

    public func matches(_ beacon: BeaconID) -> Bool {
        switch self {
        case .exact(let id): id == beacon
        case .proximityUUID(let uuid): uuid == beacon.uuid
        case .geofence: false
        }
    }
}
