/// What the user did with a delivered record (SPEC section 8): the app saw it shown, tapped it or
/// one of its buttons, or dismissed it.
public struct ResponseEvent: Sendable, Equatable {
    /// The response's own id (`SOURCE:LINE` when the line has none).
    public var id: String
    /// The device that answered: the record's device.
    public var device: String
    /// The record id (`CAMPAIGN:DEVICE:EVENT`) the response is about.
    public var notification: String
    /// What the user (or the device) did.
    public var action: ResponseAction
    /// For `click`: the button (`ok`, `cancel`, a campaign's own button id); nil or `default` for a
    /// tap on the notification itself.
    public var actionId: String?
    /// When it happened, in event time: what retention and the response window count by.
    public var time: Timestamp
    /// The message's custom payload as the app's SDK hands it over (Xtremepush `message.data`);
    /// kept in the follow-up record a click emits.
    public var data: JSONValue?
    /// What the user typed into a text input button (MCE's custom action for text entry fields).
    public var text: String?

    /// A response as a line would give it (SPEC section 8).
    public init(id: String, device: String, notification: String, action: ResponseAction, actionId: String? = nil, time: Timestamp, data: JSONValue? = nil, text: String? = nil) {
        self.id = id
        self.device = device
        self.notification = notification
        self.action = action
        self.actionId = actionId
        self.time = time
        self.data = data
        self.text = text
    }

    /// True for a tap on the notification itself rather than one of its buttons.
    public var isDefaultTap: Bool { action == .click && (actionId == nil || actionId == "default") }
}

/// What a device reports about a notification: shown (`present`), opened by the user (`open`:
/// counts opened, not clicked; Xtremepush's `reportMessageOpened`), tapped or a button clicked
/// (`click`: counts opened too), or dismissed.
public enum ResponseAction: String, Sendable, Equatable, CaseIterable {
    /// The device showed the notification.
    case present
    /// The user opened it (counted as opened, not clicked).
    case open
    /// The user tapped it or one of its buttons (`actionId`): counted as opened and clicked.
    case click
    /// The user dismissed it.
    case dismiss
}

/// One line of an input stream: a beacon event, a raw sighting (SPEC section 7) or a response (section 8).
public enum InputLine: Sendable, Equatable {
    /// An enter or exit event (SPEC section 1).
    case beacon(BeaconEvent)
    /// `typeColumn`: where the `type` value starts, for messages about it.
    case sighting(Sighting, typeColumn: Int)
    /// A response to a delivered record (SPEC section 8).
    case response(ResponseEvent)

    /// The device the line is about.
    public var device: String {
        switch self {
        case .beacon(let event): event.device
        case .sighting(let sighting, _): sighting.device
        case .response(let response): response.device
        }
    }

    /// The line as the presence layer's input, when it is one (not a response).
    public var presenceInput: InputEvent? {
        switch self {
        case .beacon(let event): .beacon(event)
        case .sighting(let sighting, let typeColumn): .sighting(sighting, typeColumn: typeColumn)
        case .response: nil
        }
    }
}
