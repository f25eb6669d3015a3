/// The type of an action a notification or one of its buttons runs, as the Acoustic/IBM MCE SDKs
/// name them; any other name is a custom type that a host application handles.
public enum ActionKind: Sendable, Hashable, CustomStringConvertible {
    /// Opens the URL in the value.
    case url
    /// Calls the phone number in the value.
    case dial
    /// Opens the app (no value).
    case openApp
    /// Opens the share sheet with the value's text.
    case share
    /// Shows the notification again after the value's minutes.
    case snooze
    /// Adds the value's calendar event.
    case calendar
    /// Adds the value's pass to Wallet.
    case passbook
    /// Shows the value's URL in a web view inside the app.
    case displayWebView
    /// Opens the inbox message whose id is the value.
    case rich
    /// MCE's custom action for text entry fields: the button asks for text (its value gives the
    /// placeholder and the submit button's title); the text comes back in the response.
    case textInput
    /// The Action Menu plug-in (`showactions`): a list of actions to choose from.
    case showActions
    /// The image Carousel plug-in: its images (https URLs, each with optional text).
    case carousel
    /// A type of the host application's own, kept as written: a handler registered under its
    /// name (`ActionRegistry`) runs it.
    case custom(String)

    /// Every predefined type, in the order the documentation lists them.
    public static let predefined: [ActionKind] = [
        .url, .dial, .openApp, .share, .snooze, .calendar, .passbook, .displayWebView, .rich, .textInput, .showActions, .carousel,
    ]

    /// The kind for a type name; predefined names are matched case-insensitively (`openapp` is
    /// `openApp`), anything else is a custom type kept as written.
    public init(type: String) {
        let lower = type.lowercased()
        self = Self.predefined.first { $0.name.lowercased() == lower } ?? .custom(type)
    }

    /// The type name as records and APNs payloads write it.
    public var name: String {
        switch self {
        case .url: "url"
        case .dial: "dial"
        case .openApp: "openApp"
        case .share: "share"
        case .snooze: "snooze"
        case .calendar: "calendar"
        case .passbook: "passbook"
        case .displayWebView: "displayWebView"
        case .rich: "rich"
        case .textInput: "textInput"
        case .showActions: "showactions"
        case .carousel: "carousel"
        case .custom(let name): name
        }
    }

    /// The type name, as `name`.
    public var description: String { name }

    /// Whether the type is none of the predefined ones, so that a host application must handle it.
    public var isCustom: Bool { if case .custom = self { true } else { false } }

    /// The button flags MCE assumes when they are left out, exactly as its document says: "If the
    /// type is rich, dial, or url, then the destructive is false, authentication is false, and
    /// foreground is true; otherwise, those attributes need to be included."
    var defaultFlags: (destructive: Bool, authentication: Bool, foreground: Bool)? {
        switch self {
        case .rich, .dial, .url: (false, false, true)
        default: nil
        }
    }
}

/// What an action does: its type and the value that type takes (a URL, a phone number, minutes,
/// a calendar event object, ...), as the campaign gave it.
public struct NotificationAction: Sendable, Equatable {
    /// The action's type (`url`, `dial`, `snooze`, or a custom name).
    public var kind: ActionKind
    /// The value as written; nil when absent (`openApp` needs none).
    public var value: JSONValue?

    /// An action of `kind` with the value the campaign gave it.
    public init(kind: ActionKind, value: JSONValue? = nil) {
        self.kind = kind
        self.value = value
    }

    /// The value as text when it is a string or a number (`"10"` and `10` are both ten minutes).
    public var valueText: String? {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n
        default: nil
        }
    }

    /// `snooze`'s minutes, when the value is a whole positive number.
    public var snoozeMinutes: Int64? {
        guard kind == .snooze, let text = valueText, let minutes = Int64(text), minutes > 0 else { return nil }
        return minutes
    }
}

/// One button of a campaign's own category (`categoryActions`): its title, its action and how iOS
/// shows it.
public struct ActionButton: Sendable, Equatable {
    /// The `actionId` responses name this button by: `id` when given, else the button's name.
    public var id: String
    /// The button title.
    public var name: String
    /// What a click on the button runs.
    public var action: NotificationAction
    /// iOS shows the button in red (`UNNotificationActionOptions.destructive`).
    public var destructive: Bool
    /// iOS asks the user to unlock the device before the action runs.
    public var authentication: Bool
    /// The click brings the app to the foreground.
    public var foreground: Bool

    /// A button with every flag given (the decoder fills in MCE's defaults for `rich`, `dial` and
    /// `url`).
    public init(id: String, name: String, action: NotificationAction, destructive: Bool, authentication: Bool, foreground: Bool) {
        self.id = id
        self.name = name
        self.action = action
        self.destructive = destructive
        self.authentication = authentication
        self.foreground = foreground
    }
}

/// The notification-action extensions of a campaign (MCE style): what opening the notification
/// does, the campaign's own buttons, a fixed category name and a media attachment.
public struct CampaignActions: Sendable, Equatable {
    /// `notificationAction`: what a tap on the notification itself does (default: open the app).
    public var notificationAction: NotificationAction?
    /// `categoryActions`: up to four buttons that replace the OK/Cancel pair.
    public var categoryActions: [ActionButton]
    /// `categoryName`: a fixed category id instead of the generated `CAMPAIGN.TRIGGER.LANGUAGE`.
    public var categoryName: String?
    /// `mediaAttachment`: an https URL of an image, sound or video to attach.
    public var mediaAttachment: String?
    /// `sound` (or `aps.sound`): the sound file the device plays; APNs `default` when nil.
    public var sound: String?
    /// `badge` (or `aps.badge`): the app icon's badge number; none when nil.
    public var badge: Int?

    /// iOS shows at most four actions of a category; MCE refuses more.
    public static let maximumCategoryActions = 4

    /// Extensions as given; `sound` and `badge` start nil (APNs defaults).
    public init(notificationAction: NotificationAction? = nil, categoryActions: [ActionButton] = [], categoryName: String? = nil, mediaAttachment: String? = nil) {
        self.notificationAction = notificationAction
        self.categoryActions = categoryActions
        self.categoryName = categoryName
        self.mediaAttachment = mediaAttachment
    }

    /// True when the campaign uses none of the extensions (its records are exactly SPEC section 3's).
    public var isEmpty: Bool {
        notificationAction == nil && categoryActions.isEmpty && categoryName == nil && mediaAttachment == nil && sound == nil && badge == nil
    }
}

extension CampaignActions {
    /// The record's category with these extensions: `categoryName` as its id, the campaign's own
    /// buttons in place of OK/Cancel.
    public func apply(to category: inout NotificationCategory) {
        if let categoryName { category.id = categoryName }
        guard !categoryActions.isEmpty else { return }
        category.actions = categoryActions.map { button in
            CategoryAction(
                id: button.id, title: button.name, behavior: button.action.kind.name, foreground: button.foreground,
                destructive: button.destructive, authenticationRequired: button.authentication, value: button.action.value)
        }
    }
}
