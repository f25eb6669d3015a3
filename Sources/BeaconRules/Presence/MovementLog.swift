/// A written movement log: where each subject was, as the people carrying the beacons (or the
/// phones) wrote it down. The truth `PresenceScore` scores derived stays against.
///
/// CSV, one stay a line after the header `subject,room,from,to`; `#` lines are comments. `subject`
/// and `room` name the pair's sides as exclusive zones do (a beacon's 42-char pid and a scanner id,
/// or a device id and a beacon's pid); `from` and `to` are RFC 3339 times, or a window
/// `START/END` (ISO 8601 interval form) when the log only says the move happened somewhere inside it.
package struct MovementLog: Sendable, Equatable {
    /// When a move happened: somewhere in `start...end` (ms; equal for an exact time).
    package struct Window: Sendable, Equatable {
        package var start: Int64
        package var end: Int64
        package init(start: Int64, end: Int64) { self.start = start; self.end = end }
    }

    /// One logged stay.
    package struct Stay: Sendable, Equatable {
        package var subject: String
        package var room: String
        package var from: Window
        package var to: Window
        /// The line of the log it was read from (0 when built in code).
        package var line: Int
        package init(subject: String, room: String, from: Window, to: Window, line: Int = 0) {
            (self.subject, self.room, self.from, self.to, self.line) = (subject, room, from, to, line)
        }
    }

    package var stays: [Stay] = []

    package init(stays: [Stay]) { self.stays = stays }

    /// Reads the CSV form; errors name the file, line and field.
    package init(csv bytes: [UInt8], file: String) throws(PresenceError) {
        var sawHeader = false
        for (index, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let text = String(decoding: raw.last == 0x0D ? raw.dropLast() : raw, as: UTF8.self).trimmingSpaces()
            if text.isEmpty || text.hasPrefix("#") { continue }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
            if !sawHeader {
                guard fields == ["subject", "room", "from", "to"] else {
                    throw PresenceError("\(file):\(number): expected the header `subject,room,from,to`, found `\(text)`")
                }
                sawHeader = true
                continue
            }
            guard fields.count == 4 else {
                throw PresenceError("\(file):\(number): expected 4 fields (subject,room,from,to), found \(fields.count)")
            }
            guard !fields[0].isEmpty, !fields[1].isEmpty else {
                throw PresenceError("\(file):\(number): `\(fields[0].isEmpty ? "subject" : "room")` is empty")
            }
            let from = try Self.window(fields[2], field: "from", at: "\(file):\(number)")
            let to = try Self.window(fields[3], field: "to", at: "\(file):\(number)")
            guard from.start <= to.end else {
                throw PresenceError("\(file):\(number): `to` (\(fields[3])) is before `from` (\(fields[2]))")
            }
            stays.append(Stay(subject: Self.name(fields[0]), room: Self.name(fields[1]), from: from, to: to, line: number))
        }
        guard sawHeader else { throw PresenceError("\(file): empty; expected the header `subject,room,from,to` and one stay a line") }
    }

    /// A beacon's pid in its lower-case form, as the presence layer writes it; other names as they are.
    private static func name(_ text: String) -> String { BeaconID(pid: text)?.description ?? text }

    private static func window(_ text: String, field: String, at place: String) throws(PresenceError) -> Window {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2 else {
            throw PresenceError("\(place): `\(field)`: expected a time or a window START/END, found `\(text)`")
        }
        var times: [Int64] = []
        for part in parts {
            guard case .time(let t, true) = Timestamp.parseRFC3339(part) else {
                throw PresenceError("\(place): `\(field)`: expected an RFC 3339 time with a zone, e.g. 2015-03-10T19:42:10Z, found `\(part)`")
            }
            times.append(t.milliseconds)
        }
        guard times[0] <= times[times.count - 1] else {
            throw PresenceError("\(place): `\(field)`: the window ends before it starts: `\(text)`")
        }
        return Window(start: times[0], end: times[times.count - 1])
    }
}
