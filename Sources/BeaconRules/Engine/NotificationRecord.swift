/// A scheduled local notification (or silent record) for one device, as SPEC section 3 writes it.
public struct NotificationRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case notification, silent }

    public var kind: Kind
    /// `CAMPAIGN:DEVICE:EVENT`.
    public var id: String
    /// The eid as written.
    public var campaign: String
    public var device: String
    public var event: String
    public var trigger: EventKind
    public var beacon: BeaconID
    public var fireDate: Timestamp
    public var actionType: ActionType
    /// The language key of the localized block used, or nil.
    public var language: String?
    public var title: String?
    public var body: String?
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
    public var id: String
    public var actions: [CategoryAction]

    public init(id: String, actions: [CategoryAction]) {
        self.id = id
        self.actions = actions
    }
}

/// One button of a category.
public struct CategoryAction: Sendable, Equatable {
    public var id: String
    public var title: String?
    /// `open`, `share` or `dismiss`; for a campaign's own buttons, the action type (`url`, `snooze`, ...).
    public var behavior: String
    public var foreground: Bool
    public var destructive: Bool
    public var authenticationRequired: Bool
    /// The action's value (a campaign's own buttons only): URL, phone number, minutes, event...
    public var value: JSONValue?

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
