import BeaconRules

/// Reads the members of one SPEC section 3 record for `Record(json:)` into the engine's
/// `NotificationRecord`: each typed as the SPEC says, or a `RecordJSONError` naming the member
/// and what was expected.
struct RecordMembers {
    let object: JSONValue

    init(json: String) throws(RecordJSONError) {
        do { object = try JSONParser.parse(json) } catch {
            throw RecordJSONError(message: "not JSON: \(error)")
        }
        guard object.objectMembers != nil else {
            throw RecordJSONError(message: "expected a record object (SPEC section 3), found \(object.kindName)")
        }
    }

    /// The record the members describe, as the engine's `NotificationRecord`.
    func record() throws(RecordJSONError) -> NotificationRecord {
        var record = NotificationRecord(
            kind: try kind() == .silent ? .silent : .notification, id: try string("id"), campaign: try string("campaign"), device: try string("device"),
            event: try string("event"), trigger: try trigger(), beacon: try beacon(), fireDate: try fireTime(),
            actionType: try actionType(), language: try optionalString("language"), title: try optionalString("title"),
            body: try optionalString("body"), url: try optionalString("url"), category: try category(), payload: try payload())
        record.subtitle = try optionalString("subtitle")
        let action = try notificationAction(), media = try optionalString("mediaAttachment")
        if action != nil || media != nil { record.actions = CampaignActions(notificationAction: action, mediaAttachment: media) }
        return record
    }

    func kind() throws(RecordJSONError) -> Record.Kind {
        let text = try string("kind")
        guard let kind = Record.Kind(rawValue: text) else {
            throw Self.expected("kind", "`notification`, `silent`, `followUp` or `withdrawn`", found: .string(text))
        }
        return kind
    }

    /// A `followUp` record's members (SPEC section 8).
    func followUp() throws(RecordJSONError) -> FollowUpRecord {
        guard let action = try notificationAction("action") else { throw Self.expected("action", "an object", found: nil) }
        return FollowUpRecord(
            id: try string("id"), notification: try string("notification"), campaign: try string("campaign"),
            device: try string("device"), actionId: try string("actionId"), action: action,
            language: try optionalString("language"), time: try time("time"), text: try optionalString("text"), data: object["data"])
    }

    /// A `withdrawn` record's members (SPEC section 7).
    func withdrawal() throws(RecordJSONError) -> Withdrawal {
        Withdrawal(
            id: try string("id"), campaign: try string("campaign"), device: try string("device"), event: try string("event"),
            beacon: try beacon(), fireDate: try fireTime(), withdrawnAt: try time("withdrawnAt"))
    }

    /// What a `withdrawn` line says: the record withdrawn, and when its stay ended.
    struct Withdrawal {
        var id: String, campaign: String, device: String, event: String
        var beacon: BeaconID
        var fireDate: Timestamp, withdrawnAt: Timestamp
    }

    func trigger() throws(RecordJSONError) -> EventKind {
        switch try string("trigger") {
        case "enter": return .enter
        case "exit": return .exit
        case let other: throw Self.expected("trigger", "`enter` or `exit`", found: .string(other))
        }
    }

    func beacon() throws(RecordJSONError) -> BeaconID {
        let text = try string("beacon")
        guard let beacon = BeaconID(pid: text) else { throw Self.expected("beacon", "a 42-digit hex pid", found: .string(text)) }
        return beacon
    }

    func fireTime() throws(RecordJSONError) -> Timestamp { try time("fireDate") }

    /// A member holding an RFC 3339 time with its zone.
    func time(_ key: String) throws(RecordJSONError) -> Timestamp {
        let text = try string(key)
        guard case .time(let time, hasZone: true) = Timestamp.parseRFC3339(text) else {
            throw Self.expected(key, "an RFC 3339 time with its zone", found: .string(text))
        }
        return time
    }

    func actionType() throws(RecordJSONError) -> ActionType {
        let text = try string("actionType")
        guard let type = [ActionType.notification, .website, .inApp, .silent].first(where: { $0.name == text }) else {
            throw Self.expected("actionType", "`notification`, `website`, `inApp` or `silent`", found: .string(text))
        }
        return type
    }

    func category() throws(RecordJSONError) -> NotificationCategory? {
        guard let value = object["category"], !value.isNull else { return nil }
        guard value.objectMembers != nil else { throw Self.expected("category", "an object", found: value) }
        let id = try Self.string(value, "id", in: "category")
        guard let elements = value["actions"]?.arrayElements else {
            throw Self.expected("category.actions", "an array", found: value["actions"])
        }
        var actions: [CategoryAction] = []
        for (index, element) in elements.enumerated() {
            let button = element.value, place = "category.actions[\(index)]"
            guard button.objectMembers != nil else { throw Self.expected(place, "an object", found: button) }
            actions.append(CategoryAction(
                id: try Self.string(button, "id", in: place), title: try Self.optionalString(button, "title", in: place),
                behavior: try Self.string(button, "behavior", in: place), foreground: try Self.bool(button, "foreground", in: place),
                destructive: try Self.bool(button, "destructive", in: place),
                authenticationRequired: try Self.bool(button, "authenticationRequired", in: place), value: button["value"]))
        }
        return NotificationCategory(id: id, actions: actions)
    }

    func notificationAction(_ key: String = "notificationAction") throws(RecordJSONError) -> NotificationAction? {
        guard let value = object[key] else { return nil }
        guard value.objectMembers != nil else { throw Self.expected(key, "an object", found: value) }
        return NotificationAction(kind: ActionKind(type: try Self.string(value, "type", in: key)), value: value["value"])
    }

    func payload() throws(RecordJSONError) -> JSONValue {
        guard let payload = object["payload"] else { throw Self.expected("payload", "a member (null when the campaign gives none)", found: nil) }
        return payload
    }

    func string(_ key: String) throws(RecordJSONError) -> String { try Self.string(object, key, in: nil) }

    func optionalString(_ key: String) throws(RecordJSONError) -> String? { try Self.optionalString(object, key, in: nil) }

    private static func string(_ object: JSONValue, _ key: String, in place: String?) throws(RecordJSONError) -> String {
        guard let text = object[key]?.stringValue else { throw expected(path(place, key), "a string", found: object[key]) }
        return text
    }

    /// Absent or null: nil.
    private static func optionalString(_ object: JSONValue, _ key: String, in place: String?) throws(RecordJSONError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw expected(path(place, key), "a string or null", found: value) }
        return text
    }

    private static func bool(_ object: JSONValue, _ key: String, in place: String) throws(RecordJSONError) -> Bool {
        guard case .bool(let flag)? = object[key] else { throw expected(path(place, key), "true or false", found: object[key]) }
        return flag
    }

    private static func path(_ place: String?, _ key: String) -> String { place.map { "\($0).\(key)" } ?? key }

    private static func expected(_ member: String, _ what: String, found: JSONValue?) -> RecordJSONError {
        let seen: String
        switch found {
        case nil: seen = "no such member"
        case .string(let text)?: seen = "\"\(text)\""
        case let value?: seen = value.kindName
        }
        return RecordJSONError(message: "record member `\(member)`: expected \(what), found \(seen)")
    }
}
