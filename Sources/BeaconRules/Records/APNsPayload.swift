/// A record as the APNs payload a push provider sends, in the Acoustic/IBM MCE shape: `aps` with
/// the alert, category, sound and badge; `notification-action`, `category-actions`,
/// `category-name` and `media-attachment` for the device SDK; and the record `id`, `device` and
/// `fireDate` so that the provider can route and schedule it and responses can name it.
///
/// Every notification carries its buttons as a dynamic category (`category-actions`, with
/// `mutable-content: 1` so that the app's service extension builds it): the campaign's own
/// buttons, or the localized OK/Cancel pair. An app that pre-registered the category by its id
/// finds it in `aps.category` too.
extension NotificationRecord {
    /// Appends the record as an APNs payload (`--format apns`), one JSON object without a newline.
    public func appendAPNs(to w: inout JSONWriter) {
        if kind == .silent {
            w.raw("{\"aps\":{\"content-available\":1}")
        } else {
            if title == nil && subtitle == nil {
                w.raw("{\"aps\":{\"alert\":"); w.string(body ?? "")
            } else {
                w.raw("{\"aps\":{\"alert\":{\"title\":"); w.optionalString(title)
                if let subtitle { w.raw(",\"subtitle\":"); w.string(subtitle) }
                w.raw(",\"body\":"); w.optionalString(body)
                w.raw("}")
            }
            if let category { w.raw(",\"category\":"); w.string(category.id) }
            w.raw(",\"sound\":"); w.string(actions?.sound ?? "default")
            if let badge = actions?.badge { w.raw(",\"badge\":"); w.integer(Int64(badge)) }
            if category != nil || actions?.mediaAttachment != nil { w.raw(",\"mutable-content\":1") }
            w.raw("},\"notification-action\":")
            tapAction.appendJSON(to: &w)
            appendCategoryActions(to: &w)
            if let name = actions?.categoryName { w.raw(",\"category-name\":"); w.string(name) }
            if let media = actions?.mediaAttachment { w.raw(",\"media-attachment\":"); w.string(media) }
        }
        w.raw(",\"id\":"); w.string(id)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"fireDate\":\""); fireDate.appendRFC3339(to: &w.bytes); w.raw("\"")
        if kind == .silent { w.raw(",\"payload\":"); w.value(payload) }
        w.raw("}")
    }

    /// `"category-actions"`: the campaign's own buttons, else the category's OK and Cancel with
    /// their localized titles: OK runs its confirmAction (`url` with the record's URL or `openApp`;
    /// `share`), in the foreground when `actInForeground` says so; Cancel (`dismiss`) never is.
    private func appendCategoryActions(to w: inout JSONWriter) {
        var buttons: [ActionButton]
        if let own = actions?.categoryActions, !own.isEmpty {
            buttons = own
        } else if let category {
            buttons = category.actions.map { action in
                let run = action.id == "ok" ? okAction : NotificationAction(kind: .custom(action.behavior))
                return ActionButton(
                    id: action.id, name: action.title ?? "", action: run, destructive: action.destructive,
                    authentication: action.authenticationRequired, foreground: action.foreground)
            }
        } else {
            return
        }
        w.raw(",\"category-actions\":[")
        for (i, b) in buttons.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"identifier\":"); w.string(b.id)
            w.raw(",\"name\":"); w.string(b.name)
            w.raw(",\"type\":"); w.string(b.action.kind.name)
            if let value = b.action.value { w.raw(",\"value\":"); w.value(value) }
            w.raw(",\"destructive\":"); w.bool(b.destructive)
            w.raw(",\"authentication\":"); w.bool(b.authentication)
            w.raw(",\"foreground\":"); w.bool(b.foreground)
            w.raw("}")
        }
        w.raw("]")
    }

    /// The APNs payload as one line of JSON (no newline).
    public var apnsLine: String {
        var w = JSONWriter(capacity: 512)
        appendAPNs(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension NotificationRecord {
    /// What a tap on the notification's body runs (SPEC section 3): the campaign's own
    /// `notificationAction`, else the record's URL, else opening the app. The record says it
    /// (`notificationAction`), the APNs payload sends it (`notification-action`), and a response
    /// with no `actionId` (a tap) runs it: the three can not disagree.
    public var tapAction: NotificationAction {
        actions?.notificationAction ?? url.map { NotificationAction(kind: .url, value: .string($0)) } ?? NotificationAction(kind: .openApp)
    }

    /// What the OK button of the default category runs (its `behavior` is the confirmAction):
    /// `share` shares the record's URL (or, without one, its title, else the campaign id); `open`
    /// opens the URL, or the app when there is none. `--format apns` sends it, and a click on OK
    /// runs it: the two can not disagree.
    public var okAction: NotificationAction {
        if category?.actions.first?.behavior == ConfirmAction.share.rawValue {
            return NotificationAction(kind: .share, value: .string(url ?? title ?? campaign))
        }
        return url.map { NotificationAction(kind: .url, value: .string($0)) } ?? NotificationAction(kind: .openApp)
    }
}
