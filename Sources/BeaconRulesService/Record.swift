public import BeaconRules
public import Foundation

/// One record as the engine writes it, with its members typed: a notification or silent record
/// (SPEC section 3), a follow-up of an action a user ran (section 8), or a delayed record withdrawn
/// because its stay ended first (section 7).
///
/// `json` is the record exactly as `replay` writes it (byte for byte, without the newline); the
/// typed members say the same thing. `fireDate` is a `Foundation.Date`, what a backend stores
/// and schedules with; `fireTime` is the engine's `Timestamp` (whole milliseconds) for code that
/// works in the engine's time. `Codable` encodes and decodes the same JSON object, member by
/// member; an encoder that orders keys its own way (Foundation's `JSONEncoder`) gives the same
/// object with its members reordered, so send `json` where the bytes matter.
public struct Record: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the record is.
    public enum Kind: String, Sendable {
        /// A notification the device shows (SPEC section 3).
        case notification
        /// Data for the app, nothing shown (a campaign of type 4).
        case silent
        /// A user ran one of a notification's actions: `followUp` has it (SPEC section 8).
        case followUp
        /// A delayed record whose stay ended before it was due: `withdrawnAt` says when (section 7).
        case withdrawn
    }

    /// The SPEC's JSON object, exactly.
    public let json: String
    /// `notification`, `silent`, `followUp` or `withdrawn`.
    public let kind: Kind
    /// `CAMPAIGN:DEVICE:EVENT`: what a response names.
    public let id: String
    /// The campaign's `eid` as written.
    public let campaign: String
    /// The device the record is for.
    public let device: String
    /// The id of the event that fired it (nil for a follow-up, which a response made).
    public let event: String?
    /// Whether an enter or an exit fired it (nil for a follow-up or a withdrawal).
    public let trigger: EventKind?
    /// The beacon of the event (nil for a follow-up).
    public let beacon: BeaconID?
    /// When the device shows it (whole milliseconds), as a `Date`; a follow-up's is the
    /// response's time, a withdrawal's the withdrawn record's.
    public let fireDate: Date
    /// `fireDate` as the engine's time (epoch milliseconds).
    public let fireTime: Timestamp
    /// The campaign's `actionType` (what a tap does); nil for a follow-up or a withdrawal.
    public let actionType: ActionType?
    /// The language key of the localized block used, or nil when none was used.
    public let language: String?
    /// The chosen language's title (nil for a silent record, or when the campaign gives none).
    public let title: String?
    /// The chosen language's subtitle, when the campaign gives one.
    public let subtitle: String?
    /// The chosen language's body (nil for a silent record).
    public let body: String?
    /// The chosen language's URL, or nil.
    public let url: String?
    /// The category: its id and its buttons (title, behavior, flags); nil for a silent record.
    public let category: NotificationCategory?
    /// What a tap on the body runs (SPEC section 3): the campaign's notification action, else
    /// the URL, else opening the app; nil for a silent record whose campaign gives none, and for
    /// a withdrawal. For a follow-up, the action the user ran.
    public let notificationAction: NotificationAction?
    /// The media attachment's URL, when the campaign gives one.
    public let mediaAttachment: String?
    /// `content.payload` exactly as given (`.null` when the campaign gives none, and for a
    /// follow-up or a withdrawal).
    public let payload: JSONValue
    /// The action a user ran, for a `followUp` record.
    public let followUp: FollowUpRecord?
    /// When the stay ended, for a `withdrawn` record.
    public let withdrawnAt: Date?

    /// The record as a JSON tree, members in order. `json` is checked when a record is made, so
    /// this always parses.
    public var value: JSONValue {
        do { return try JSONParser.parse(json) } catch {
            preconditionFailure("a Record's json is checked when the record is made: \(error)")
        }
    }

    /// The record the engine decided: its members as the engine made them, `json` as `replay`
    /// writes it.
    public init(_ record: NotificationRecord) {
        self.init(record, json: record.jsonLine)
    }

    /// A record from one SPEC section 3 JSON object (as `replay` writes it). Throws
    /// `RecordJSONError` naming the member and what was expected when it is not one.
    public init(json: String) throws(RecordJSONError) {
        let members = try RecordMembers(json: json)
        switch try members.kind() {
        case .notification, .silent: self.init(try members.record(), json: json)
        case .followUp: self.init(followUp: try members.followUp(), json: json)
        case .withdrawn: self.init(withdrawn: try members.withdrawal(), json: json)
        }
    }

    /// A follow-up record, `json` its line.
    private init(followUp: FollowUpRecord, json: String) {
        self.json = json
        kind = .followUp
        id = followUp.id
        campaign = followUp.campaign
        device = followUp.device
        event = nil
        trigger = nil
        beacon = nil
        fireTime = followUp.time
        fireDate = Self.date(followUp.time)
        actionType = nil
        language = followUp.language
        title = nil
        subtitle = nil
        body = nil
        url = nil
        category = nil
        notificationAction = followUp.action
        mediaAttachment = nil
        payload = .null
        self.followUp = followUp
        withdrawnAt = nil
    }

    /// A withdrawn record, `json` its line.
    private init(withdrawn record: RecordMembers.Withdrawal, json: String) {
        self.json = json
        kind = .withdrawn
        id = record.id
        campaign = record.campaign
        device = record.device
        event = record.event
        trigger = nil
        beacon = record.beacon
        fireTime = record.fireDate
        fireDate = Self.date(record.fireDate)
        actionType = nil
        language = nil
        title = nil
        subtitle = nil
        body = nil
        url = nil
        category = nil
        notificationAction = nil
        mediaAttachment = nil
        payload = .null
        followUp = nil
        withdrawnAt = Self.date(record.withdrawnAt)
    }

    private static func date(_ time: Timestamp) -> Date { Date(timeIntervalSince1970: Double(time.milliseconds) / 1000) }

    /// `record`'s members, with `json` its line.
    private init(_ record: NotificationRecord, json: String) {
        self.json = json
        kind = record.kind == .silent ? .silent : .notification
        id = record.id
        campaign = record.campaign
        device = record.device
        event = record.event
        trigger = record.trigger
        beacon = record.beacon
        fireTime = record.fireDate
        fireDate = Self.date(record.fireDate)
        actionType = record.actionType
        language = record.language
        title = record.title
        subtitle = record.subtitle
        body = record.body
        url = record.url
        category = record.category
        notificationAction = record.kind == .notification ? record.tapAction : record.actions?.notificationAction
        mediaAttachment = record.actions?.mediaAttachment
        payload = record.payload
        followUp = nil
        withdrawnAt = nil
    }

    /// The records of JSON lines the engine wrote (each ending in `\n`), in order. The engine
    /// writes only records, so each parses: one that does not is a fault of the engine.
    static func engineLines(_ bytes: some Collection<UInt8>) -> [Record] {
        bytes.split(separator: 0x0A).map { line in
            do { return try Record(json: String(decoding: line, as: UTF8.self)) } catch {
                preconditionFailure("the engine wrote a line that is not a SPEC section 3 record: \(error)")
            }
        }
    }

    /// The record's JSON (`json`).
    public var description: String { json }

    /// Records are equal when their JSON is byte for byte.
    public static func == (a: Record, b: Record) -> Bool { a.json == b.json }
    /// Hashes the JSON, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    /// Encodes the record's object (its fields in the encoder's own key order: `json` keeps the
    /// SPEC's).
    public func encode(to encoder: any Encoder) throws {
        try CodableJSON(value).encode(to: encoder)
    }

    /// Decodes a record's object and checks it as `init(json:)` does.
    public init(from decoder: any Decoder) throws {
        var w = JSONWriter(capacity: 1024)
        w.value(try CodableJSON(from: decoder).value)
        do { try self.init(json: String(decoding: w.bytes, as: UTF8.self)) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
}
