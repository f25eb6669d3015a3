/// How sightings and flickering enter/exit streams are turned into presence, per campaign set.
/// Every value has a default (docs/presence.md says why each is what it is).
public struct PresenceSettings: Sendable, Equatable {
    /// No qualifying sighting (or no re-enter after an exit) for this long confirms an exit.
    public var exitTimeoutMilliseconds: Int64 = 30_000
    /// The smoothed RSSI must reach this (dBm) for a sighting to start a stay (per pair), or for a
    /// pair to be heard at all (exclusive zones). Default -85, or -95 with exclusive zones.
    public var enterRSSI: Int {
        get { givenEnterRSSI ?? (exclusiveZones == nil ? -85 : -95) }
        set { givenEnterRSSI = newValue }
    }
    /// While inside, a sighting keeps the stay alive while the smoothed RSSI is at least this (dBm).
    /// Lower than `enterRSSI`: the gap is the hysteresis that stops a signal hovering at one
    /// threshold from toggling. Default -92, or -100 with exclusive zones.
    public var exitRSSI: Int {
        get { givenExitRSSI ?? (exclusiveZones == nil ? -92 : -100) }
        set { givenExitRSSI = newValue }
    }
    /// The thresholds set explicitly; nil: the default of the mode.
    var givenEnterRSSI: Int?
    var givenExitRSSI: Int?
    /// The running-average window of the RSSI filter.
    public var smoothingWindowMilliseconds: Int64 = 10_000
    /// Samples needed in the window before a sighting may start a stay: one lone spike does not.
    public var minimumSamples: Int = 2
    /// Evidence to enter: a stay starts only once this many readings (raw, not smoothed) reached
    /// `enterRSSI` within `enterWindowMilliseconds`, so a lone strong reading among weak ones,
    /// which lifts the smoothed value over the threshold for a moment, is not a stay.
    public var enterReadings: Int = 3
    /// The window (ms) in which `enterReadings` readings must reach `enterRSSI`.
    public var enterWindowMilliseconds: Int64 = 10_000
    /// How far behind the newest event time an event may arrive and still be used (replay).
    public var maxLatenessMilliseconds: Int64 = 10_000
    /// Given enter/exit events pass through flicker control (hold exits, collapse re-enters).
    public var flickerControl: Bool = true
    /// Exclusive zones (SPEC section 7): of the pairs that share this subject, only the strongest
    /// smoothed signal is present. nil: every (device, beacon) pair is tracked on its own.
    public var exclusiveZones: PresenceSubject?
    /// How much stronger (dB) another room's smoothed signal must be before the subject moves there.
    public var switchMargin: Double = 3
    /// How long (ms) another room must stay ahead by `switchMargin` before the subject moves there.
    public var switchHoldMilliseconds: Int64 = 5_000

    /// The defaults (docs/presence.md explains each).
    public init() {}

    /// Settings from a JSON object: `exitTimeout`, `smoothingWindow`, `enterWindow`, `maxLateness`
    /// (seconds), `enterRSSI`, `exitRSSI` (dBm), `minimumSamples`, `enterReadings`, `flickerControl`, `exclusiveZones`,
    /// `switchMargin` (dB), `switchHold` (seconds). Absent fields keep their defaults (`exclusiveZones`:
    /// `exclusiveZonesByDefault`, as the input format implies); unknown fields are errors, because a
    /// misspelt setting silently ignored is a bug.
    public init(json: JSONValue, file: String, exclusiveZonesByDefault: PresenceSubject? = nil) throws(PresenceSettingsError) {
        exclusiveZones = exclusiveZonesByDefault
        guard let members = json.objectMembers else {
            throw PresenceSettingsError("\(file):1: expected a JSON object like {\"exitTimeout\": 30, \"enterRSSI\": -85, \"exitRSSI\": -92}, found \(json.kindName)")
        }
        func seconds(_ m: JSONMember, min: Double) throws(PresenceSettingsError) -> Int64 {
            guard let v = m.value.doubleValue, v >= min, v < 1e9 else {
                throw PresenceSettingsError("\(file):\(m.line):\(m.column): `\(m.key)`: expected seconds >= \(Int(min)), found \(m.value.compactText)")
            }
            return Int64((v * 1000).rounded())
        }
        func dBm(_ m: JSONMember) throws(PresenceSettingsError) -> Int {
            guard let v = m.value.integerValue, (-127...20).contains(v) else {
                throw PresenceSettingsError("\(file):\(m.line):\(m.column): `\(m.key)`: expected whole dBm in -127...20, found \(m.value.compactText)")
            }
            return Int(v)
        }
        for m in members {
            switch m.key {
            case "exitTimeout": exitTimeoutMilliseconds = try seconds(m, min: 1)
            case "smoothingWindow": smoothingWindowMilliseconds = try seconds(m, min: 0)
            case "maxLateness": maxLatenessMilliseconds = try seconds(m, min: 0)
            case "enterRSSI": enterRSSI = try dBm(m)
            case "exitRSSI": exitRSSI = try dBm(m)
            case "minimumSamples":
                guard let v = m.value.integerValue, v >= 1, v <= 1000 else {
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `minimumSamples`: expected an integer 1...1000, found \(m.value.compactText)")
                }
                minimumSamples = Int(v)
            case "enterReadings":
                guard let v = m.value.integerValue, v >= 1, v <= 1000 else {
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `enterReadings`: expected an integer 1...1000, found \(m.value.compactText)")
                }
                enterReadings = Int(v)
            case "enterWindow": enterWindowMilliseconds = try seconds(m, min: 0)
            case "exclusiveZones":
                switch m.value {
                case .bool(false), .null: exclusiveZones = nil
                case .string(let name) where PresenceSubject(rawValue: name) != nil: exclusiveZones = PresenceSubject(rawValue: name)
                default:
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `exclusiveZones`: expected \"beacon\" (fixed scanners hear carried beacons), \"device\" (a phone hears fixed beacons) or false, found \(m.value.compactText)")
                }
            case "switchMargin":
                guard let v = m.value.doubleValue, v >= 0, v <= 60 else {
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `switchMargin`: expected dB in 0...60, found \(m.value.compactText)")
                }
                switchMargin = v
            case "switchHold": switchHoldMilliseconds = try seconds(m, min: 0)
            case "flickerControl":
                guard case .bool(let b) = m.value else {
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `flickerControl`: expected true or false, found \(m.value.compactText)")
                }
                flickerControl = b
            default:
                throw PresenceSettingsError("\(file):\(m.line):\(m.column): unknown setting `\(m.key)`; expected one of exitTimeout, enterRSSI, exitRSSI, smoothingWindow, minimumSamples, enterReadings, enterWindow, maxLateness, flickerControl, exclusiveZones, switchMargin, switchHold")
            }
        }
        guard exitRSSI <= enterRSSI else {
            throw PresenceSettingsError("\(file): exitRSSI (\(exitRSSI) dBm) is above enterRSSI (\(enterRSSI) dBm): a stay would end as soon as it starts; make exitRSSI the lower one (hysteresis)")
        }
    }
}

/// Who is in one room at a time under exclusive zones: the `device` (a phone hearing fixed beacons)
/// or the `beacon` (fixed scanners, each a device, hearing a carried beacon).
public enum PresenceSubject: String, Sendable, Equatable {
    /// A phone that hears fixed beacons: each beacon is a room.
    case device
    /// A carried beacon that fixed scanners hear: each scanner is a room.
    case beacon

    /// The subject of a (device, beacon) pair, and the room the pair stands for.
    public func subject(of key: PresenceKey) -> String {
        self == .device ? key.device : key.beacon.description
    }

    /// The room of a key: its beacon for a device subject, its scanner (device) for a beacon
    /// subject.
    public func room(of key: PresenceKey) -> String {
        self == .device ? key.beacon.description : key.device
    }
}

/// A presence settings file that does not load: where, and what was expected.
public struct PresenceSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is (file, key) and what was expected.
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
