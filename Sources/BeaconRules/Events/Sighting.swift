/// A device (or a fixed scanner) heard a beacon at a signal strength (SPEC section 7). Sightings
/// become enter and exit events only through the presence layer (`PresenceLayer`).
public struct Sighting: Sendable, Equatable {
    /// The sighting's id; the caller supplies `SOURCE:LINE` when the input has none.
    public var id: String
    /// The device (or scanner) that heard the beacon.
    public var device: String
    /// The beacon heard.
    public var beacon: BeaconID
    /// Received signal strength in dBm.
    public var rssi: Int
    /// When it was heard (event time).
    public var time: Timestamp
    /// The device's language tag as given, if any.
    public var locale: String?

    /// A sighting of each part.
    public init(id: String, device: String, beacon: BeaconID, rssi: Int, time: Timestamp, locale: String? = nil) {
        self.id = id
        self.device = device
        self.beacon = beacon
        self.rssi = rssi
        self.time = time
        self.locale = locale
    }
}

/// One parsed input line: a given enter/exit event, or a raw sighting.
public enum InputEvent: Sendable, Equatable {
    /// An enter or exit event as given.
    case beacon(BeaconEvent)
    /// `typeColumn`: where the `type` value starts, for messages about it.
    case sighting(Sighting, typeColumn: Int)

    /// The event or sighting time, which the presence layer orders input by.
    public var time: Timestamp {
        switch self {
        case .beacon(let e): e.time
        case .sighting(let s, _): s.time
        }
    }
}
