package import BeaconRules

/// A picture of presence: one row per (device, beacon) with its stays as bars, the raw sightings
/// as ticks, and the records marked at their fireDate. Built from what the presence engine did.
package struct Timeline: Sendable {
    /// One (device, beacon).
    package struct Row: Sendable {
        package var device: String
        package var beacon: BeaconID
        package var stays: [Stay] = []
        /// Times (ms) of raw sightings, to show the flicker the stays were made from.
        package var sightings: [Int64] = []
        package var marks: [Mark] = []
    }

    /// A stay from its enter to the device's last presence; `confirmedAt` is when the exit was
    /// confirmed. A stay still open at the end of the input has `end` and `confirmedAt` `Int64.max`.
    package struct Stay: Sendable {
        package var start: Int64
        package var end: Int64
        package var confirmedAt: Int64
    }

    /// A record at its fireDate.
    package struct Mark: Sendable {
        package enum Kind: Sendable { case notification, silent, withdrawn }
        package var time: Int64
        package var campaign: String
        package var trigger: String
        package var kind: Kind
    }

    /// One subject under exclusive zones (SPEC section 7): the room it was in over time.
    package struct SubjectRow: Sendable {
        package var subject: String
        package var stays: [RoomStay] = []
    }

    /// A subject in a room from its enter to its last presence there (`Int64.max`: open at the end).
    package struct RoomStay: Sendable {
        package var room: String
        package var start: Int64
        package var end: Int64
    }

    package var title: String
    package private(set) var rows: [Row] = []
    /// With exclusive zones: one row per subject, drawn above the per-pair rows.
    package private(set) var subjects: [SubjectRow] = []
    /// What the subjects' rows stand for, for their labels.
    package private(set) var subjectKind: PresenceSubject = .beacon
    private var rowIndex: [PresenceKey: Int] = [:]

    package init(title: String) { self.title = title }

    private mutating func row(_ key: PresenceKey) -> Int {
        if let i = rowIndex[key] { return i }
        rowIndex[key] = rows.count
        rows.append(Row(device: key.device, beacon: key.beacon))
        return rows.count - 1
    }

    /// Adds a raw sighting tick.
    package mutating func addSighting(_ s: Sighting) {
        rows[row(PresenceKey(device: s.device, beacon: s.beacon))].sightings.append(s.time.milliseconds)
    }

    /// Adds the presence engine's log: enters open stays, exits close them.
    package mutating func addPresence(_ outputs: [PresenceOutput]) {
        for stay in PairStay.stays(in: outputs) {
            rows[row(stay.key)].stays.append(Stay(start: stay.enter, end: stay.departedAt, confirmedAt: stay.exit))
        }
    }

    /// Adds the rooms of each subject under exclusive zones, from the presence engine's log.
    package mutating func addRooms(_ outputs: [PresenceOutput], subject: PresenceSubject) {
        subjectKind = subject
        var index: [String: Int] = [:]
        for stay in PresenceScore.stays(from: outputs, subject: subject).sorted(by: { $0.enter < $1.enter }) {
            let i = index[stay.subject] ?? subjects.count
            if i == subjects.count {
                index[stay.subject] = i
                subjects.append(SubjectRow(subject: stay.subject))
            }
            subjects[i].stays.append(RoomStay(room: stay.room, start: stay.enter, end: stay.departedAt))
        }
        subjects.sort { $0.subject < $1.subject }
    }

    /// Adds a record or withdrawal line as written by `replay` (`kind`, `campaign`, `device`, `beacon`, `fireDate`, `trigger`).
    package mutating func addRecord(_ record: JSONValue) {
        guard let device = record["device"]?.stringValue, let pid = record["beacon"]?.stringValue,
              let beacon = BeaconID(pid: pid), let date = record["fireDate"]?.stringValue,
              case .time(let t, _) = Timestamp.parseRFC3339(date) else { return }
        let kind: Mark.Kind
        switch record["kind"]?.stringValue {
        case "silent": kind = .silent
        case "withdrawn": kind = .withdrawn
        default: kind = .notification
        }
        let mark = Mark(time: t.milliseconds, campaign: record["campaign"]?.stringValue ?? "?", trigger: record["trigger"]?.stringValue ?? "", kind: kind)
        rows[row(PresenceKey(device: device, beacon: beacon))].marks.append(mark)
    }

    /// Rows sorted by device, then beacon, so a device's beacons sit together.
    package mutating func sortRows() {
        rows.sort { ($0.device, $0.beacon.description) < ($1.device, $1.beacon.description) }
        rowIndex = [:]
        for (i, r) in rows.enumerated() { rowIndex[PresenceKey(device: r.device, beacon: r.beacon)] = i }
    }
}
