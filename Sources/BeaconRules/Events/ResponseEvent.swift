/// What the user did with a delivered record (SPEC section 8): the app saw it shown, tapped it or
/// one of its buttons, or dismissed it.
public struct ResponseEvent: Sendable, Equatable {
    /// The response's own id (`SOURCE:LINE` when the line has none).
    public var id: String
    public var device: String
    /// The record id (`CAMPAIGN:DEVICE:EVENT`) the response is about.
    public var notification: String
    public var action: ResponseAction
    /// For `click`: the button (`ok`, `cancel`, a campaign's own button id); nil or `default` for a
    /// tap on the notification itself.
    public var actionId: String?
    public var time: Timestamp

    public init(id: String, device: String, notification: String, action: ResponseAction, actionId: String? = nil, time: Timestamp) {
        self.id = id
        self.device = device
        self.notification = notification
        self.action = action
        self.actionId = actionId
        self.time = time
    }

    /// True for a tap on the notification itself rather than one of its buttons.
    public var isDefaultTap: Bool { action == .click && (actionId == nil || actionId == "default") }
}

/// The three things a device reports about a notification.
public enum ResponseAction: String, Sendable, Equatable, CaseIterable {
    case present, click, dismiss
}

/// One line of an input stream: a beacon event, a raw sighting (SPEC section 7) or a response (section 8).
public enum InputLine: Sendable, Equatable {
    case beacon(BeaconEvent)
    /// `typeColumn`: where the `type` value starts, for messages about it.
    case sighting(Sighting, typeColumn: Int)
    case response(ResponseEvent)

    /// The line as the presence layer's input, when it is one (not a response).
    public var presenceInput: InputEvent? {
        switch self {
        case .beacon(let event): .beacon(event)
        case .sighting(let sighting, let typeColumn): .sighting(sighting, typeColumn: typeColumn)
        case .response: nil
        }
    }
}
