/// What a handler is told when a user clicks: the record (rebuilt as it was delivered), the action
/// the click runs, the button id and the response itself.
public struct ActionInvocation: Sendable {
    /// The record as it was delivered.
    public var record: NotificationRecord
    /// The action the clicked button (or the notification itself) runs: its type and value.
    public var action: NotificationAction
    /// `default` for a tap on the notification itself.
    public var actionId: String
    /// The response line that reported the click.
    public var response: ResponseEvent
}

/// What a handler asks the engine to emit.
public enum ActionOutput: Sendable, Equatable {
    /// A new notification record (snooze): responses to it count for the original notification.
    case schedule(NotificationRecord)
    /// A record for the backend about what the user did (share, url, or a host's own).
    case followUp(FollowUpRecord)
}

/// Runs an action on the server side; called once per (record, button) however often the click is
/// reported.
public typealias ActionHandler = @Sendable (ActionInvocation) -> [ActionOutput]

/// Handlers by action type. A host registers its own for custom types, or replaces a predefined
/// one (as the MCE Web Action plug-in replaces `url`). A click on a type with no handler is counted
/// as unhandled and reported, never dropped silently.
public struct ActionRegistry: Sendable {
    private var handlers: [ActionKind: ActionHandler] = [:]

    /// The built-in handlers: `snooze` schedules the notification again N minutes after the click;
    /// `share`, `url` and `textInput` (with the text typed) emit a follow-up record; the types the
    /// device SDK carries out by itself (`openApp`, `dial`, `calendar`, `passbook`,
    /// `displayWebView`, `rich`, `showactions`, `carousel`) need nothing here.
    public init() {
        handlers[.snooze] = Self.snooze
        handlers[.share] = Self.followUp
        handlers[.url] = Self.followUp
        handlers[.textInput] = Self.followUp
        for kind in [ActionKind.openApp, .dial, .calendar, .passbook, .displayWebView, .rich, .showActions, .carousel] {
            handlers[kind] = { _ in [] }
        }
    }

    /// A registry with no handlers at all (every click is unhandled until one is registered).
    public static var empty: ActionRegistry {
        var registry = ActionRegistry()
        registry.handlers.removeAll()
        return registry
    }

    /// Registers (or replaces) the handler of an action type.
    public mutating func register(_ kind: ActionKind, handler: @escaping ActionHandler) {
        handlers[kind] = handler
    }

    /// Registers (or replaces) the handler of an action type given by name (`url`, `myCoupon`).
    public mutating func register(type: String, handler: @escaping ActionHandler) {
        register(ActionKind(type: type), handler: handler)
    }

    /// Removes a type's handler: its clicks then count as unhandled.
    public mutating func unregister(_ kind: ActionKind) {
        handlers[kind] = nil
    }

    /// The handler of an action type, nil when its clicks count as unhandled.
    public func handler(for kind: ActionKind) -> ActionHandler? { handlers[kind] }

    /// The record again, `value` minutes after the click, with its id (and event) suffixed `:snooze`.
    public static let snooze: ActionHandler = { invocation in
        guard let minutes = invocation.action.snoozeMinutes else { return [] }
        var record = invocation.record
        // The head of a record is written from campaign, device and event: keep `id` in step.
        record.event += ":snooze"
        record.id = invocation.response.notification + ":snooze"
        record.fireDate = Timestamp(milliseconds: invocation.response.time.milliseconds + minutes * 60_000)
        return [.schedule(record)]
    }

    /// A follow-up record naming the action and its value, for the backend to act on.
    public static let followUp: ActionHandler = { invocation in
        [.followUp(FollowUpRecord(invocation))]
    }
}

/// A record for the backend that a user ran an action: `{"kind":"followUp",...}`.
public struct FollowUpRecord: Sendable, Equatable {
    /// `NOTIFICATION:ACTIONID`: one per record and button.
    public var id: String
    /// The id of the record the user responded to.
    public var notification: String
    /// The campaign's eid.
    public var campaign: String
    /// The device that responded.
    public var device: String
    /// The button clicked (`default` for the notification itself).
    public var actionId: String
    /// The action the button runs.
    public var action: NotificationAction
    /// The record's language, nil when it had none.
    public var language: String?
    /// The response's time.
    public var time: Timestamp
    /// What the user typed (a text input button); nil otherwise.
    public var text: String?
    /// The response's `data` (the message's custom payload as the app's SDK hands it over).
    public var data: JSONValue?

    /// A follow-up record of each part.
    public init(id: String, notification: String, campaign: String, device: String, actionId: String, action: NotificationAction, language: String?, time: Timestamp, text: String? = nil, data: JSONValue? = nil) {
        self.id = id
        self.notification = notification
        self.campaign = campaign
        self.device = device
        self.actionId = actionId
        self.action = action
        self.language = language
        self.time = time
        self.text = text
        self.data = data
    }

    /// The follow-up of an invocation.
    public init(_ invocation: ActionInvocation) {
        self.init(
            id: invocation.response.notification + ":" + invocation.actionId, notification: invocation.response.notification,
            campaign: invocation.record.campaign, device: invocation.record.device, actionId: invocation.actionId,
            action: invocation.action, language: invocation.record.language, time: invocation.response.time,
            text: invocation.response.text, data: invocation.response.data)
    }

    /// Writes the record as one JSON object (no newline).
    public func appendJSON(to w: inout JSONWriter) {
        w.raw("{\"kind\":\"followUp\",\"id\":"); w.string(id)
        w.raw(",\"notification\":"); w.string(notification)
        w.raw(",\"campaign\":"); w.string(campaign)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"actionId\":"); w.string(actionId)
        w.raw(",\"action\":"); action.appendJSON(to: &w)
        w.raw(",\"language\":"); w.optionalString(language)
        w.raw(",\"time\":\""); time.appendRFC3339(to: &w.bytes); w.raw("\"")
        if let text { w.raw(",\"text\":"); w.string(text) }
        if let data { w.raw(",\"data\":"); w.value(data) }
        w.raw("}")
    }

    /// The record as one line of JSON.
    public var jsonLine: String {
        var w = JSONWriter(capacity: 256)
        appendJSON(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
