/// A scheduled local notification (or silent record) for one device, as SPEC section 3 writes it.
public struct NotificationRecord: Sendable, Equatable {
    /// A notification the device shows, or a silent record (SPEC section 3).
    public enum Kind: String, Sendable {
        /// The device shows it (title, body, buttons).
        case notification
        /// Data for the app, nothing shown (a campaign of type 4, `silent`).
        case silent
    }

    /// Whether the device shows it.
    public var kind: Kind
    /// `CAMPAIGN:DEVICE:EVENT`.
    public var id: String
    /// The eid as written.
    public var campaign: String
    /// The device the record is for.
    public var device: String
    /// The id of the event that fired it.
    public var event: String
    /// Whether an enter, an exit or a dwell fired it.
    public var trigger: EventKind
    /// The beacon of the event.
    public var beacon: BeaconID
    /// When the device shows it: the event time plus `delay`, or `deliverAt` (SPEC section 2).
    public var fireDate: Timestamp
    /// The campaign's `actionType` (what a tap does).
    public var actionType: ActionType
    /// The language key of the localized block used, or nil.
    public var language: String?
    /// The chosen language's title, nil when the campaign gives none.
    public var title: String?
    /// The chosen language's body.
    public var body: String?
    /// The chosen language's URL, for the action types that open one.
    public var url: String?
    /// nil for silent records.
    public var category: NotificationCategory?
    /// `content.payload` exactly as given (null when absent).
    public var payload: JSONValue
    /// The chosen language's `subtitle`, when the campaign gives one.
    public var subtitle: String?
    /// The campaign's notification-action extensions; nil when it uses none (the record is then
    /// exactly SPEC section 3's).
    public var actions: CampaignActions?

    /// A record of each part (the engine makes them; tests and handlers may too).
    public init(
        kind: Kind, id: String, campaign: String, device: String, event: String, trigger: EventKind,
        beacon: BeaconID, fireDate: Timestamp, actionType: ActionType, language: String?, title: String?,
        body: String?, url: String?, category: NotificationCategory?, payload: JSONValue
    ) {
        self.kind = kind
        self.id = id
        self.campaign = campaign
        self.device = device
        self.event = event
        self.trigger = trigger
        self.beacon = beacon
        self.fireDate = fireDate
        self.actionType = actionType
        self.language = language
        self.title = title
        self.body = body
        self.url = url
        self.category = category
        self.payload = payload
    }
}

/// An iOS-style notification category: an id and its buttons (OK first, then Cancel).
public struct NotificationCategory: Sendable, Equatable {
    /// The category's id, as the app registers it.
    public var id: String
    /// Its buttons, in order.
    public var actions: [CategoryAction]

    /// A category of these buttons.
    public init(id: String, actions: [CategoryAction]) {
        self.id = id
        self.actions = actions
    }
}

/// One button of a category.
public struct CategoryAction: Sendable, Equatable {
    /// The button's id, as a response reports it.
    public var id: String
    /// The button's label, nil when neither the campaign nor the locales give one.
    public var title: String?
    /// `open`, `share` or `dismiss`; for a campaign's own buttons, the action type (`url`, `snooze`, ...).
    public var behavior: String
    /// Whether the button brings the app to the foreground.
    public var foreground: Bool
    /// Whether the device shows the button as destructive.
    public var destructive: Bool
    /// Whether the device must be unlocked to run it.
    public var authenticationRequired: Bool
    /// The action's value (a campaign's own buttons only): URL, phone number, minutes, event...
    public var value: JSONValue?

    /// A button of each part.
    public init(id: String, title: String?, behavior: String, foreground: Bool, destructive: Bool = false, authenticationRequired: Bool = false, value: JSONValue? = nil) {
        self.value = value
        self.id = id
        self.title = title
        self.behavior = behavior
        self.foreground = foreground
        self.destructive = destructive
        self.authenticationRequired = authenticationRequired
    }
}
