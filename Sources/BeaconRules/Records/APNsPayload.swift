/// A record as the APNs payload a push provider sends, in the Acoustic/IBM MCE shape: `aps` with
/// the alert, category and sound; `notification-action`, `category-actions`, `category-name` and
/// `media-attachment` for the device SDK; and the record `id`, `device` and `fireDate` so that the
/// provider can route and schedule it and responses can name it.
extension NotificationRecord {
    public func appendAPNs(to w: inout JSONWriter) {
        if kind == .silent {
            w.raw("{\"aps\":{\"content-available\":1}")
        } else {
            w.raw("{\"aps\":{\"alert\":{\"title\":"); w.optionalString(title)
            if let subtitle { w.raw(",\"subtitle\":"); w.string(subtitle) }
            w.raw(",\"body\":"); w.optionalString(body)
            w.raw("}")
            if let category { w.raw(",\"category\":"); w.string(category.id) }
            w.raw(",\"sound\":\"default\"")
            if actions?.needsServiceExtension == true { w.raw(",\"mutable-content\":1") }
            w.raw("},\"notification-action\":")
            let url = self.url
            (actions?.notificationAction ?? url.map { NotificationAction(kind: .url, value: .string($0)) } ?? NotificationAction(kind: .openApp)).appendJSON(to: &w)
            if let buttons = actions?.categoryActions, !buttons.isEmpty {
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
            if let name = actions?.categoryName { w.raw(",\"category-name\":"); w.string(name) }
            if let media = actions?.mediaAttachment { w.raw(",\"media-attachment\":"); w.string(media) }
        }
        w.raw(",\"id\":"); w.string(id)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"fireDate\":\""); fireDate.appendRFC3339(to: &w.bytes); w.raw("\"")
        if kind == .silent { w.raw(",\"payload\":"); w.value(payload) }
        w.raw("}")
    }

    /// The APNs payload as one line of JSON (no newline).
    public var apnsLine: String {
        var w = JSONWriter(capacity: 512)
        appendAPNs(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
