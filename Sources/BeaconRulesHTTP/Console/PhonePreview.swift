package import BeaconRules

/// One notification as a phone shows it, drawn from the record the engine makes for it
/// (`RulesEngine.record(for:event:fireDate:)`, the same strings, buttons and category as
/// `replay`'s) and its APNs payload (`appendAPNs`): title, body, the buttons as the device labels
/// them, what a tap on the body does (SPEC section 3: the payload's `notification-action`), and
/// both JSON forms.
package struct PhonePreview: Sendable {
    package let record: NotificationRecord
    /// The heading over the phone (the language, and how it was chosen).
    package let caption: String

    package init(record: NotificationRecord, caption: String) {
        self.record = record
        self.caption = caption
    }

    /// The record's JSON line, as `replay` writes it.
    package var recordJSON: String { record.jsonLine }

    /// The APNs payload, as `replay --format apns` writes it.
    package var apnsJSON: String { record.apnsLine }

    /// The buttons as the device labels them: the campaign's own, else the category's OK and Cancel.
    package var buttons: [String] {
        guard let payload = try? JSONParser.parse(apnsJSON) else { return [] }
        return (payload["category-actions"]?.arrayElements ?? []).map { $0.value["name"]?.stringValue ?? "" }
    }

    /// What a tap on the notification's body does: the payload's `notification-action`.
    package var tap: String {
        guard record.kind == .notification, let payload = try? JSONParser.parse(apnsJSON),
              let action = payload["notification-action"] else { return "nothing: a silent record shows no notification" }
        let type = action["type"]?.stringValue ?? "openApp"
        switch type {
        case "openApp": return "opens the app"
        case "url": return "opens " + (action["value"]?.stringValue ?? "the URL")
        case "dial": return "dials " + (action["value"]?.stringValue ?? "the number")
        default: return "runs the app's \"\(type)\" action"
        }
    }

    package func write(to h: inout HTMLWriter) {
        h.raw("<div class=\"phone\" data-language=\""); h.text(record.language ?? ""); h.raw("\"><div class=\"lang\">"); h.text(caption); h.raw("</div>")
        if record.kind == .silent {
            h.raw("<div class=\"banner\"><div class=\"from\">silent</div><div class=\"body\">No notification: the app receives the payload.</div></div>")
        } else {
            h.raw("<div class=\"banner\"><div class=\"from\">"); h.text(record.actionType.name); h.raw(" · now</div>")
            if let title = record.title { h.raw("<div class=\"title\">"); h.text(title); h.raw("</div>") }
            if let subtitle = record.subtitle { h.raw("<div class=\"subtitle\">"); h.text(subtitle); h.raw("</div>") }
            h.raw("<div class=\"body\">"); h.text(record.body ?? ""); h.raw("</div><div class=\"buttons\">")
            for button in buttons { h.raw("<span class=\"button\">"); h.text(button); h.raw("</span>") }
            h.raw("</div></div>")
        }
        h.raw("<div class=\"tap\">Tap: "); h.text(tap); h.raw("</div></div>")
    }

    /// The record and its APNs payload, folded.
    package func writeJSON(to h: inout HTMLWriter) {
        h.raw("<details><summary>"); h.text(caption); h.raw(": record and APNs payload</summary><pre class=\"record\">"); h.text(recordJSON)
        h.raw("</pre><pre class=\"apns\">"); h.text(apnsJSON); h.raw("</pre></details>")
    }
}
