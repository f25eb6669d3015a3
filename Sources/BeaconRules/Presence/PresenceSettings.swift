/// How sightings and flickering enter/exit streams are turned into presence, per campaign set.
/// Every value has a default (docs/presence.md says why each is what it is).
public struct PresenceSettings: Sendable, Equatable {
    /// No qualifying sighting (or no re-enter after an exit) for this long confirms an exit.
    public var exitTimeoutMilliseconds: Int64 = 30_000
    /// The smoothed RSSI must reach this (dBm) for a sighting to start a stay.
    public var enterRSSI: Int = -85
    /// While inside, a sighting keeps the stay alive while the smoothed RSSI is at least this (dBm).
    /// Lower than `enterRSSI`: the gap is the hysteresis that stops a signal hovering at one
    /// threshold from toggling.
    public var exitRSSI: Int = -92
    /// The running-average window of the RSSI filter.
    public var smoothingWindowMilliseconds: Int64 = 10_000
    /// Samples needed in the window before a sighting may start a stay: one lone spike does not.
    public var minimumSamples: Int = 2
    /// How far behind the newest event time an event may arrive and still be used (replay).
    public var maxLatenessMilliseconds: Int64 = 10_000
    /// Given enter/exit events pass through flicker control (hold exits, collapse re-enters).
    public var flickerControl: Bool = true

    public init() {}

    /// Settings from a JSON object: `exitTimeout`, `smoothingWindow`, `maxLateness` (seconds),
    /// `enterRSSI`, `exitRSSI` (dBm), `minimumSamples`, `flickerControl`. Absent fields keep their
    /// defaults; unknown fields are errors, because a misspelt setting silently ignored is a bug.
    public init(json: JSONValue, file: String) throws(PresenceSettingsError) {
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
            case "flickerControl":
                guard case .bool(let b) = m.value else {
                    throw PresenceSettingsError("\(file):\(m.line):\(m.column): `flickerControl`: expected true or false, found \(m.value.compactText)")
                }
                flickerControl = b
            default:
                throw PresenceSettingsError("\(file):\(m.line):\(m.column): unknown setting `\(m.key)`; expected one of exitTimeout, enterRSSI, exitRSSI, smoothingWindow, minimumSamples, maxLateness, flickerControl")
            }
        }
        guard exitRSSI <= enterRSSI else {
            throw PresenceSettingsError("\(file): exitRSSI (\(exitRSSI) dBm) is above enterRSSI (\(enterRSSI) dBm): a stay would end as soon as it starts; make exitRSSI the lower one (hysteresis)")
        }
    }
}

/// A presence settings file that does not load: where, and what was expected.
public struct PresenceSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
