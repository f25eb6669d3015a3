/// The raw recorded iBeacon scan format of `Tests/Fixtures/starksm64` (RaspberryPiBeaconParser):
/// JSON objects written back to back (`}{`, pretty-printed or one per line), each one reading of a
/// beacon by a fixed scanner. Each reading becomes a `Sighting` with the scanner as the device.
package enum RecordedScans {
    /// One object of the input: where it starts (1-based line) and what it became.
    package enum Item: Sendable {
        case sighting(Sighting)
        /// A scanner heartbeat (`messageType` 1): not a beacon reading, skipped.
        case heartbeat
        case rejected(EventError)
    }

    /// Calls `body` with each top-level object of `bytes` and the line it starts on. Objects are
    /// found by brace depth outside strings, so the file need not be one object per line.
    package static func forEachObject(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        var depth = 0
        var inString = false
        var escaped = false
        var start = -1
        var line = 1
        var startLine = 1
        for i in 0..<bytes.count {
            let b = bytes[i]
            if b == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x7B:
                if depth == 0 { start = i; startLine = line }
                depth += 1
            case 0x7D:
                depth -= 1
                if depth == 0 && start >= 0 {
                    body(UnsafeBufferPointer(rebasing: bytes[start...i]), startLine)
                    start = -1
                }
                if depth < 0 { depth = 0 }
            default: break
            }
        }
    }

    /// Each reading of `bytes` as a sighting with its line, heartbeats skipped, objects that are not
    /// readings handed to `rejected`. Ids are `SOURCE:LINE` (the format has none).
    package static func forEachSighting(
        in bytes: UnsafeBufferPointer<UInt8>, source: String,
        _ body: (Sighting, Int) -> Void, rejected: (EventError, Int) -> Void
    ) {
        forEachObject(in: bytes) { object, line in
            switch item(object, fallbackID: "\(source):\(line)") {
            case .heartbeat: break
            case .rejected(let error): rejected(error, line)
            case .sighting(let sighting): body(sighting, line)
            }
        }
    }

    /// One object as a sighting. `fallbackID` names it (`SOURCE:LINE`) since the format has no ids.
    package static func item(_ object: UnsafeBufferPointer<UInt8>, fallbackID: String) -> Item {
        let value: JSONValue
        do { value = try JSONParser.parse(object) } catch {
            return .rejected(EventError("invalid JSON in a recorded scan: \(error.message)"))
        }
        if let type = value["messageType"]?.integerValue, type != 0 { return .heartbeat }
        guard let scanner = value["scannerID"]?.stringValue, !scanner.isEmpty else {
            return .rejected(EventError("field `scannerID`: expected the scanner's name (a non-empty string)"))
        }
        guard let uuidText = value["uuid"]?.stringValue, let uuid = ProximityUUID(text: uuidText) else {
            return .rejected(EventError("field `uuid`: expected a proximity UUID of 32 hex digits, found \(value["uuid"]?.compactText ?? "nothing")"))
        }
        guard let major = value["major"]?.integerValue, (0...65535).contains(major),
              let minor = value["minor"]?.integerValue, (0...65535).contains(minor) else {
            return .rejected(EventError("fields `major` and `minor`: expected integers 0...65535, found \(value["major"]?.compactText ?? "nothing") and \(value["minor"]?.compactText ?? "nothing")"))
        }
        guard let rssi = value["rssi"]?.integerValue, (-127...20).contains(rssi) else {
            return .rejected(EventError("field `rssi`: expected whole dBm in -127...20, found \(value["rssi"]?.compactText ?? "nothing")"))
        }
        guard let time = value["time"]?.integerValue else {
            return .rejected(EventError("field `time`: expected epoch milliseconds, found \(value["time"]?.compactText ?? "nothing")"))
        }
        let beacon = BeaconID(uuid: uuid, major: UInt16(major), minor: UInt16(minor))
        return .sighting(Sighting(id: fallbackID, device: scanner, beacon: beacon, rssi: Int(rssi), time: Timestamp(milliseconds: time)))
    }
}
