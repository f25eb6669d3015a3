/// Formats records as JSON lines (SPEC section 3), fields in the documented order.
///
/// A record is written as a head (what depends on the event: ids, device, beacon, fireDate) and a
/// tail (what depends only on the campaign, the trigger and the chosen language). The engine's hot
/// path caches tails and joins heads from runs rendered once (`RecordHead`); both paths write
/// with the same functions, so they cannot drift apart.
extension NotificationRecord {
    /// Appends the record as SPEC section 3's JSON object, fields in the SPEC's order, without a
    /// newline.
    public func appendJSON(to w: inout JSONWriter) {
        let eid = JSONWriter.escaped(campaign), device = JSONWriter.escaped(self.device), event = JSONWriter.escaped(self.event)
        eid.withUnsafeBufferPointer { eid in
            device.withUnsafeBufferPointer { device in
                event.withUnsafeBufferPointer { event in
                    let room = RecordHead.campaignRoom(eid: eid.count) + RecordHead.eventRoom(device: device.count, event: event.count)
                    w.bytes.append(writingAtMost: room) { c in
                        RecordHead.writeIDOpening(&c, kind: kind, eid: eid)
                        RecordHead.writeIDClosing(&c, device: device, event: event)
                        RecordHead.writeCampaignField(&c, eid: eid)
                        RecordHead.writeEventFields(&c, device: device, event: event, trigger: trigger, beacon: beacon)
                        RecordHead.writeFireDate(&c, fireDate)
                    }
                }
            }
        }
        appendTail(to: &w)
    }

    /// `,"actionType":...` through the closing brace. `payloadJSON`: the payload already written
    /// as JSON (the engine writes each campaign's once, for all its tails), else it is written here.
    func appendTail(to w: inout JSONWriter, payloadJSON: [UInt8]? = nil) {
        w.raw(",\"actionType\":"); w.string(actionType.name)
        w.raw(",\"language\":"); w.optionalString(language)
        if kind == .notification {
            w.raw(",\"title\":"); w.optionalString(title)
            if let subtitle { w.raw(",\"subtitle\":"); w.string(subtitle) }
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
                if let value = action.value { w.raw(",\"value\":"); w.value(value) }
                w.raw("}")
            }
            w.raw("]}")
        }
        // What a tap on the body runs: on every notification; on a silent record only when the
        // campaign gives one (nothing is shown to tap).
        if kind == .notification {
            w.raw(",\"notificationAction\":"); tapAction.appendJSON(to: &w)
        } else if let action = actions?.notificationAction {
            w.raw(",\"notificationAction\":"); action.appendJSON(to: &w)
        }
        if let media = actions?.mediaAttachment { w.raw(",\"mediaAttachment\":"); w.string(media) }
        w.raw(",\"payload\":")
        if let payloadJSON { w.bytes.append(contentsOf: payloadJSON) } else { w.value(payload) }
        w.raw("}")
    }

    /// The record as one line of JSON (no newline).
    public var jsonLine: String {
        var w = JSONWriter(capacity: 512)
        appendJSON(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension NotificationAction {
    /// `{"type":...,"value":...}` (no `value` when absent).
    public func appendJSON(to w: inout JSONWriter) {
        w.raw("{\"type\":"); w.string(kind.name)
        if let value { w.raw(",\"value\":"); w.value(value) }
        w.raw("}")
    }
}
