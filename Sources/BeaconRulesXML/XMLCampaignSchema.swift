import BeaconRules

/// The vocabulary of the XML export form (SPEC section 6): which elements and attributes exist
/// where, so that a misspelling can be answered with the name that was meant.
enum XMLCampaignSchema {
    static let namespace = "urn:beaconrules:campaigns:1"

    /// Children each element may have.
    static let children: [String: [String]] = [
        "campaigns": ["campaign"],
        "campaign": ["beacon", "timeframe", "content", "onEnter", "onExit", "notificationAction", "categoryAction", "categoryName", "mediaAttachment"],
        "notificationAction": ["value"],
        "categoryAction": ["value"],
        "content": ["subject", "body", "url", "payload"],
        "onEnter": ["strings"],
        "onExit": ["strings"],
    ]

    /// Attributes each element may have (`xmlns` declarations are not attributes to libxml2).
    static let attributes: [String: [String]] = [
        "campaigns": [],
        "campaign": ["eid", "name", "trigger", "type", "suppressionTime", "sendOnlyOnce", "delay", "dwell", "deliverAt", "instant", "sound", "badge"],
        "beacon": ["uuid", "major", "minor"],
        "timeframe": ["start", "end"],
        "onEnter": ["confirmAction", "actInForeground"],
        "onExit": ["confirmAction", "actInForeground"],
        "strings": ["lang", "title", "subtitle", "message", "okButtonTitle", "cancelButtonTitle"],
        "subject": [], "body": [], "url": [], "payload": [], "content": [],
        "notificationAction": ["type", "value"],
        "categoryAction": ["id", "name", "type", "value", "destructive", "authentication", "foreground"],
        "categoryName": [], "mediaAttachment": [], "value": [],
    ]

    static let triggers: [(name: String, code: Int)] = [("enter", 1), ("exit", 2), ("enterExit", 3)]
    static let types: [(name: String, code: Int)] = [("notification", 1), ("website", 2), ("inApp", 3), ("silent", 4)]

    /// "unknown X "name" on <parent>; did you mean "best"?" with the valid names when none is close.
    static func unknown(_ what: String, _ name: String, in parent: String, valid: [String]) -> String {
        var message = "unknown \(what) \"\(name)\" in <\(parent)>"
        if valid.isEmpty { return message + "; <\(parent)> has no \(what)s" }
        if let best = Spelling.closest(to: name, in: valid) { message += "; did you mean \"\(best)\"?" }
        return message + " (expected one of: \(valid.joined(separator: ", ")))"
    }
}
