/// Formats records as JSON lines (SPEC section 3) straight into bytes, fields in the documented order.
extension NotificationRecord {
    public func appendJSON(to w: inout JSONWriter) {
        w.raw("{\"kind\":"); w.string(kind.rawValue)
        w.raw(",\"id\":"); w.string(id)
        w.raw(",\"campaign\":"); w.string(campaign)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"event\":"); w.string(event)
        w.raw(",\"trigger\":"); w.string(trigger.name)
        w.raw(",\"beacon\":\""); beacon.appendPid(to: &w.bytes); w.raw("\"")
        w.raw(",\"fireDate\":\""); fireDate.appendRFC3339(to: &w.bytes); w.raw("\"")
        w.raw(",\"actionType\":"); w.string(actionType.name)
        w.raw(",\"language\":"); w.optionalString(language)
        if kind == .notification {
            w.raw(",\"title\":"); w.optionalString(title)
            w.raw(",\"body\":"); w.optionalString(body)
        }
        w.raw(",\"url\":"); w.optionalString(url)
        if let category {
            w.raw(",\"category\":{\"id\":"); w.string(category.id)
            w.raw(",\"actions\":[")
            for (i, action) in category.actions.enumerated() {
                if i > 0 { w.raw(",") }
                w.raw("{\"id\":"); w.string(action.id)
                w.raw(",\"title\":"); w.optionalString(action.title)
                w.raw(",\"behavior\":"); w.string(action.behavior)
                w.raw(",\"foreground\":"); w.bool(action.foreground)
                w.raw(",\"destructive\":"); w.bool(action.destructive)
                w.raw(",\"authenticationRequired\":"); w.bool(action.authenticationRequired)
                w.raw("}")
            }
            w.raw("]}")
        }
        w.raw(",\"payload\":"); w.value(payload)
        w.raw("}")
    }

    /// The record as one line of JSON (no newline).
    public var jsonLine: String {
        var w = JSONWriter(capacity: 512)
        appendJSON(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
