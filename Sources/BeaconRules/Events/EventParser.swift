/// Parses one JSON line into a `BeaconEvent` straight from bytes (no `JSONDecoder`, no
/// intermediate tree), with a message per problem that names the field and what was expected.
public enum EventParser {
    /// The field names the parser knows, as bytes.
    @usableFromInline enum Field { case id, device, type, beacon, time, locale, rssi, app, other }

    /// A line's member `app` as the scan of its event met it (`LineApps`, a process serving
    /// several apps): none, the first one's string, or a first one that is not a string.
    package enum AppMember: Equatable, Sendable {
        case absent
        case string(String)
        case notAString
    }

    /// Parses `line` (no trailing newline needed; a trailing `\r` is tolerated).
    /// `fallbackID` is used when the line has no `id` (SPEC: `SOURCE:LINE`).
    public static func parse(line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String) throws(EventError) -> BeaconEvent {
        switch try parseLine(line, fallbackID: fallbackID, acceptsSightings: false) {
        case .beacon(let event): return event
        case .sighting: throw EventError("invalid line: a sighting where none is accepted")
        }
    }

    /// Parses `line` into an enter/exit event or a raw sighting (SPEC section 7): the presence
    /// layer's input. Enter and exit lines take the same byte-level path as `parse(line:fallbackID:)`;
    /// responses are refused (streams that mix them in read lines with `parseInput`).
    public static func parsePresenceInput(line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String) throws(EventError) -> InputEvent {
        try parseLine(line, fallbackID: fallbackID, acceptsSightings: true)
    }

    /// Without `acceptsSightings` a sighting is refused as soon as its `type` is read, with the
    /// message the bare rules engine has always given.
    static func parseLine(_ line: UnsafeBufferPointer<UInt8>, fallbackID: () -> String, acceptsSightings: Bool) throws(EventError) -> InputEvent {
        if let event = parseCanonical(line) { return .beacon(event) }
        return try reporting {
            var s = JSONScanner(line)
            var app = AppMember.absent
            return try parseObject(&s, fallbackID: fallbackID, acceptsSightings: acceptsSightings, app: &app)
        }
    }

    /// Reads one beacon event line (SPEC section 1); `fallbackID` is the id of a line that has none
    /// (`SOURCE:LINE`). The error says where and what was expected.
    public static func parse(line: String, fallbackID: String) throws(EventError) -> BeaconEvent {
        try withBytes(line) { bytes throws(EventError) in try parse(line: bytes, fallbackID: fallbackID) }
    }

    /// True when the line holds only white space (SPEC: blank lines are skipped).
    @inlinable
    public static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }

    /// `acceptResponses`: a `"type":"response"` line throws `ResponseLine` instead of the rejection,
    /// for `parseInput` to read it as a response.
    /// `app`: the line's first member `app`, when it has one (read as any other member is skipped).
    static func parseObject(
        _ s: inout JSONScanner, fallbackID: () -> String, acceptsSightings: Bool, acceptResponses: Bool = false, app: inout AppMember
    ) throws -> InputEvent {
        s.skipWhitespace()
        guard s.current == 0x7B else {
            if s.current == 0x5B { throw EventError("expected one JSON object per line, found an array", column: s.column) }
            throw EventError("not a JSON object: expected `{`, found \(s.foundDescription())", column: s.column)
        }
        s.position += 1
        var id: String?
        var device: String?
        var kind: EventKind?
        var beacon: BeaconID?
        var time: Timestamp?
        var locale: String?
        var rssi: Int?
        var isSighting = false
        var typeColumn = 0
        try forEachField(&s, key: eventField) { s, field in
            let valueColumn = s.column
            switch field {
            case .other:
                try s.skipValue()
            case .app:
                try readApp(&s, into: &app)
            case .id:
                id = try optionalText(&s, field: "id", allowNumber: true)
                if id?.isEmpty == true { throw EventError("field `id`: expected a non-empty string", column: valueColumn) }
            case .device:
                guard let text = try optionalText(&s, field: "device", allowNumber: false), !text.isEmpty else {
                    throw EventError("field `device`: expected a non-empty string (the device to notify)", column: valueColumn)
                }
                device = text
            case .type:
                typeColumn = valueColumn
                if s.current == 0x22, let known = knownType(&s) {
                    kind = known
                    isSighting = false
                    break
                }
                guard let text = try optionalText(&s, field: "type", allowNumber: false) else {
                    throw EventError("field `type`: expected \"enter\" or \"exit\", found null", column: valueColumn)
                }
                switch text {
                case "enter": kind = .enter; isSighting = false
                case "exit": kind = .exit; isSighting = false
                case "sighting" where acceptsSightings: kind = nil; isSighting = true
                case "response" where acceptResponses:
                    throw ResponseLine()
                case "sighting", "response":
                    throw EventError("field `type`: \"\(text)\" events are not accepted by this engine; expected \"enter\" or \"exit\"", column: valueColumn)
                default:
                    throw EventError("field `type`: expected \"enter\" or \"exit\", found \"\(text)\"", column: valueColumn)
                }
            case .beacon:
                beacon = try parseBeacon(&s, column: valueColumn)
            case .time:
                time = try parseTime(&s, column: valueColumn)
            case .locale:
                locale = try optionalText(&s, field: "locale", allowNumber: false)
            case .rssi:
                rssi = try parseRSSI(&s, column: valueColumn)
            }
        }
        s.skipWhitespace()
        guard s.isAtEnd else {
            throw EventError("unexpected \(s.foundDescription()) after the JSON object; expected one object per line", column: s.column)
        }
        guard kind != nil || isSighting else { throw EventError("missing field `type`: expected \"enter\" or \"exit\"") }
        guard let device else { throw EventError("missing field `device`: expected a non-empty string") }
        guard let beacon else { throw EventError("missing field `beacon`: expected a 42-char pid or {\"uuid\", \"major\", \"minor\"}") }
        guard let time else { throw EventError("missing field `time`: expected RFC 3339 (2016-05-10T16:00:00Z) or epoch milliseconds") }
        if isSighting {
            guard let rssi else { throw EventError("missing field `rssi`: a sighting needs the received signal strength in dBm, e.g. \"rssi\":-71") }
            return .sighting(Sighting(id: id ?? fallbackID(), device: device, beacon: beacon, rssi: rssi, time: time, locale: locale), typeColumn: typeColumn)
        }
        return .beacon(BeaconEvent(id: id ?? fallbackID(), device: device, kind: kind!, beacon: beacon, time: time, locale: locale))
    }

    /// Walks the members of an object whose `{` was just read: `body` gets each key's byte range (and
    /// whether it holds escapes) with the scanner at the value, and must read the value. `place` names
    /// the object in syntax messages (`""` for the line itself, `" in `beacon`"` for a nested one).
    @inline(__always)
    static func forEachField(
        _ s: inout JSONScanner, in place: String = "", _ body: (inout JSONScanner, Range<Int>, Bool) throws -> Void
    ) throws {
        try forEachField(&s, in: place, key: { s in try s.scanString() }) { s, key in try body(&s, key.range, key.escaped) }
    }

    /// `forEachField` with the key read by `readKey` (called with the scanner at the key's quote).
    @inline(__always)
    static func forEachField<Key>(
        _ s: inout JSONScanner, in place: String = "", key readKey: (inout JSONScanner) throws -> Key,
        _ body: (inout JSONScanner, Key) throws -> Void
    ) throws {
        s.skipWhitespace()
        if s.current == 0x7D {
            s.position += 1
            return
        }
        while true {
            s.skipWhitespace()
            guard s.current == 0x22 else {
                throw EventError("invalid JSON: expected a field name in quotes\(place), found \(s.foundDescription())", column: s.column)
            }
            let key = try readKey(&s)
            s.skipWhitespace()
            try s.expect(0x3A, "`:` after a field name")
            s.skipWhitespace()
            try body(&s, key)
            s.skipWhitespace()
            if s.current == 0x2C { s.position += 1; continue }
            if s.current == 0x7D { s.position += 1; return }
            let expected = place.isEmpty ? "after a field" : place.trimmingSpaces()
            throw EventError("invalid JSON: expected `,` or `}` \(expected), found \(s.foundDescription())", column: s.column)
        }
    }

    /// The value of a member `app`: the first one's is kept (a string, or that it is not one),
    /// any later one's skipped. A string is checked as `skipValue` checks it.
    static func readApp(_ s: inout JSONScanner, into app: inout AppMember) throws {
        s.skipWhitespace()
        guard app == .absent else { return try s.skipValue() }
        guard s.current == 0x22 else {
            try s.skipValue()
            app = .notAString
            return
        }
        let (range, escaped) = try s.scanString()
        app = .string(try s.decodeString(range, escaped: escaped))
    }

    /// `"enter"` or `"exit"` read straight from the bytes; nil (position unchanged) for anything else.
    @inline(__always)
    static func knownType(_ s: inout JSONScanner) -> EventKind? { knownType(s.bytes, &s.position) }

    /// `knownType` on bytes: `p` at the opening quote, moved past the closing one when read.
    @inline(__always)
    static func knownType(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) -> EventKind? {
        guard p < b.count, b[p] == 0x22 else { return nil }
        // The word after the opening quote, first byte lowest: `ente` then `r"`, or `exit` then `"`.
        guard p + 6 <= b.count else { return nil }
        let word = UnsafeRawPointer(b.baseAddress! + p + 1).loadUnaligned(as: UInt32.self)
        if word == 0x6574_6E65, p + 7 <= b.count, b[p + 5] == 0x72, b[p + 6] == 0x22 { p += 7; return .enter }
        if word == 0x7469_7865, b[p + 5] == 0x22 { p += 6; return .exit }
        return nil
    }

    /// A quoted pid read in place (a pid holds nothing a string scan would stop at): `p` at the
    /// opening quote, moved past the closing one when read; nil (nothing moved) for anything else.
    @inline(__always)
    static func quotedPid(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) -> BeaconID? {
        guard p + 44 <= b.count, b[p] == 0x22, b[p + 43] == 0x22, let id = BeaconID(pidBytes: UnsafeBufferPointer(rebasing: b[p + 1..<p + 43])) else { return nil }
        p += 44
        return id
    }

    /// A quoted `...Z` time (`Timestamp.parseCanonicalUTC`) read in place, as `quotedPid`;
    /// `dates`: the last date read.
    @inline(__always)
    static func quotedUTCTime(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, dates: inout UTCDateCache) -> Timestamp? {
        guard p < b.count, b[p] == 0x22 else { return nil }
        // With milliseconds (24 bytes), then without (20).
        let base = b.baseAddress! + p + 1
        if p + 26 <= b.count, base[24] == 0x22, let time = Timestamp.parseCanonicalUTC(UnsafeBufferPointer(start: base, count: 24), dates: &dates) {
            p += 26
            return time
        }
        if p + 22 <= b.count, base[20] == 0x22, let time = Timestamp.parseCanonicalUTC(UnsafeBufferPointer(start: base, count: 20), dates: &dates) {
            p += 22
            return time
        }
        return nil
    }

    /// The field whose key starts at the scanner (at its quote), read past it. The event's own
    /// keys written plainly are recognised from one 8-byte load; anything else is scanned and
    /// classified.
    @inline(__always)
    static func eventField(_ s: inout JSONScanner) throws -> Field {
        let p = s.position
        if p + 9 <= s.bytes.count {
            // The key's bytes and its closing quote, first byte lowest.
            let word = UnsafeRawPointer(s.bytes.baseAddress! + p + 1).loadUnaligned(as: UInt64.self)
            let seven = word & 0x00FF_FFFF_FFFF_FFFF, five = word & 0xFF_FFFF_FFFF
            var field: Field?
            var length = 0
            if word & 0xFF_FFFF == 0x22_6469 { field = .id; length = 2 }  // id"
            else if seven == 0x22_6563_6976_6564 { field = .device; length = 6 }  // device"
            else if five == 0x22_6570_7974 { field = .type; length = 4 }  // type"
            else if seven == 0x22_6E6F_6361_6562 { field = .beacon; length = 6 }  // beacon"
            else if five == 0x22_656D_6974 { field = .time; length = 4 }  // time"
            else if seven == 0x22_656C_6163_6F6C { field = .locale; length = 6 }  // locale"
            else if five == 0x22_6973_7372 { field = .rssi; length = 4 }  // rssi"
            if let field {
                s.position = p + length + 2
                return field
            }
        }
        let (range, escaped) = try s.scanString()
        return escaped ? classify(Array(try s.decodeString(range, escaped: true).utf8)) : classify(s.bytes, range)
    }

    @inlinable
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Field {
        let n = range.count
        let b = range.lowerBound
        switch n {
        case 2 where bytes[b] == 0x69 && bytes[b + 1] == 0x64: return .id
        case 3 where bytes[b] == 0x61 && bytes[b + 1] == 0x70 && bytes[b + 2] == 0x70: return .app
        case 4:
            if bytes[b] == 0x74 && bytes[b + 1] == 0x79 && bytes[b + 2] == 0x70 && bytes[b + 3] == 0x65 { return .type }
            if bytes[b] == 0x74 && bytes[b + 1] == 0x69 && bytes[b + 2] == 0x6D && bytes[b + 3] == 0x65 { return .time }
            if matches(bytes, b, "rssi") { return .rssi }
            return .other
        case 6:
            if matches(bytes, b, "device") { return .device }
            if matches(bytes, b, "beacon") { return .beacon }
            if matches(bytes, b, "locale") { return .locale }
            return .other
        default: return .other
        }
    }

    static func classify(_ key: [UInt8]) -> Field {
        key.withUnsafeBufferPointer { classify($0, 0..<$0.count) }
    }

    @inlinable
    static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int, _ word: StaticString) -> Bool {
        let p = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount where bytes[at + k] != p[k] { return false }
        return true
    }

    /// A string value, or nil for null; numbers are taken as their text when allowed.
    static func optionalText(_ s: inout JSONScanner, field: String, allowNumber: Bool) throws -> String? {
        let column = s.column
        switch s.current ?? 0 {
        case 0x22:
            let (range, escaped) = try s.scanString()
            return try s.decodeString(range, escaped: escaped)
        case 0x6E:
            _ = try s.scanLiteral()
            return nil
        case 0x2D where allowNumber, 0x30...0x39 where allowNumber:
            let range = try s.scanNumber()
            return String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self)
        default:
            let start = s.position
            try s.skipValue()
            let found = valueDescription(s.bytes, start..<s.position)
            throw EventError("field `\(field)`: expected a string, found \(found)", column: column)
        }
    }

    static func parseBeacon(_ s: inout JSONScanner, column: Int) throws -> BeaconID {
        switch s.current ?? 0 {
        case 0x22:
            if let id = quotedPid(s.bytes, &s.position) { return id }
            let (range, escaped) = try s.scanString()
            if !escaped, let id = BeaconID(pidBytes: UnsafeBufferPointer(rebasing: s.bytes[range])) { return id }
            let text = try s.decodeString(range, escaped: escaped)
            if let id = BeaconID(pid: text) { return id }
            throw EventError("field `beacon`: \"\(text)\" is not a pid: \(BeaconID.pidProblem(text) ?? "expected 42 characters")", column: column)
        case 0x7B:
            s.position += 1
            var uuid: ProximityUUID?
            var major: UInt16?
            var minor: UInt16?
            try forEachField(&s, in: " in `beacon`") { s, keyRange, keyEscaped in
                let key = try s.decodeString(keyRange, escaped: keyEscaped)
                let valueColumn = s.column
                switch key {
                case "uuid":
                    guard s.current == 0x22 else {
                        let start = s.position
                        try s.skipValue()
                        throw EventError("field `beacon.uuid`: expected a string of 32 hex digits (dashes allowed), found \(valueDescription(s.bytes, start..<s.position))", column: valueColumn)
                    }
                    let (range, escaped) = try s.scanString()
                    let text = try s.decodeString(range, escaped: escaped)
                    guard let parsed = ProximityUUID(text: text) else {
                        throw EventError("field `beacon.uuid`: \"\(text)\" is not a proximity UUID: expected 32 hex digits, dashes allowed", column: valueColumn)
                    }
                    uuid = parsed
                case "major", "minor":
                    let start = s.position
                    var value: Int64?
                    if s.current == 0x2D || (s.current.map(isDigit) ?? false) {
                        let range = try s.scanNumber()
                        value = Int64(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self))
                    } else { try s.skipValue() }
                    guard let v = value, (0...65535).contains(v) else {
                        throw EventError("field `beacon.\(key)`: expected an integer 0...65535, found \(valueDescription(s.bytes, start..<s.position))", column: valueColumn)
                    }
                    if key == "major" { major = UInt16(v) } else { minor = UInt16(v) }
                default:
                    try s.skipValue()
                }
            }
            guard let uuid else { throw EventError("field `beacon`: missing `uuid` (32 hex digits)", column: column) }
            guard let major else { throw EventError("field `beacon`: missing `major` (0...65535)", column: column) }
            guard let minor else { throw EventError("field `beacon`: missing `minor` (0...65535)", column: column) }
            return BeaconID(uuid: uuid, major: major, minor: minor)
        default:
            let start = s.position
            try s.skipValue()
            throw EventError("field `beacon`: expected a 42-char pid string or {\"uuid\", \"major\", \"minor\"}, found \(valueDescription(s.bytes, start..<s.position))", column: column)
        }
    }

    static func parseTime(_ s: inout JSONScanner, column: Int) throws -> Timestamp {
        switch s.current ?? 0 {
        case 0x22:
            var dates = UTCDateCache()
            if let time = quotedUTCTime(s.bytes, &s.position, dates: &dates) { return time }
            let (range, escaped) = try s.scanString()
            let parse: TimestampParse
            if escaped {
                parse = Timestamp.parseRFC3339(try s.decodeString(range, escaped: true))
            } else {
                parse = Timestamp.parseRFC3339(bytes: UnsafeBufferPointer(rebasing: s.bytes[range]))
            }
            let bytes = s.bytes
            let text = { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            switch parse {
            case .time(let t, hasZone: true): return t
            case .time(_, hasZone: false):
                throw EventError("field `time`: \"\(text())\" has no zone; expected RFC 3339 with `Z` or an offset like +02:00", column: column)
            case .timeOfDayOnly:
                throw EventError("field `time`: \"\(text())\" has no date; expected RFC 3339 like 2016-05-10T16:00:00Z", column: column)
            case .invalid(let reason):
                throw EventError("field `time`: \"\(text())\" is not an RFC 3339 time (\(reason)); expected like 2016-05-10T16:00:00Z or epoch milliseconds", column: column)
            }
        case 0x2D, 0x30...0x39:
            let range = try s.scanNumber()
            let text = String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self)
            guard let ms = Int64(text) else {
                throw EventError("field `time`: \(text) is not whole epoch milliseconds; expected an integer like 1462896060000", column: column)
            }
            return Timestamp(milliseconds: ms)
        default:
            let start = s.position
            try s.skipValue()
            throw EventError("field `time`: expected an RFC 3339 string or epoch milliseconds, found \(valueDescription(s.bytes, start..<s.position))", column: column)
        }
    }

    /// A received signal strength: an integer (or a number, rounded) of dBm in -127...20, the range
    /// a Bluetooth LE radio reports.
    static func parseRSSI(_ s: inout JSONScanner, column: Int) throws -> Int {
        let start = s.position
        if s.current == 0x2D || (s.current.map(isDigit) ?? false) {
            let range = try s.scanNumber()
            let text = String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self)
            if let value = Double(text), value >= -127, value <= 20 { return Int(value.rounded()) }
        } else {
            try s.skipValue()
        }
        throw EventError("field `rssi`: expected a signal strength in dBm, a number in -127...20 like -71, found \(valueDescription(s.bytes, start..<s.position))", column: column)
    }

    /// A value's text for messages, shortened when long.
    static func valueDescription(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        if text.isEmpty { return "nothing" }
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}
