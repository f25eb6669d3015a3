/// The notification-action extensions (`notificationAction`, `categoryActions`, `categoryName`,
/// `mediaAttachment`, `sound`, `badge`) with the checks the Acoustic/IBM MCE documentation makes: an action the
/// device SDK would refuse is a load error here, at its line and column, not a surprise on a phone.
extension CampaignDecoder {
    /// Reads the extensions of one action object; problems land in `diagnostics`. Every key is
    /// read under each of its spellings (`CampaignVocabulary`): `categoryActions` or MCE's
    /// `category-actions`, and so on.
    mutating func campaignActions(_ fields: ActionFields, prefix: @autoclosure () -> String) -> CampaignActions {
        var actions = CampaignActions()
        // Most actions have none of the extensions: the path is only spelled out for one that has.
        let keys = ["notificationAction", "categoryActions", "categoryName", "mediaAttachment", "sound", "badge", "aps"]
        guard keys.contains(where: { key in CampaignVocabulary.spellings(of: key).contains { fields.member($0).map { !$0.value.isNull } ?? false } }) else {
            return actions
        }
        let prefix = prefix()
        // `aps.sound` is `sound` of the member `aps` (MCE's payload shape).
        let lookup = { (key: String) -> JSONMember? in
            guard key.hasPrefix("aps.") else { return fields.member(key) }
            return fields.member("aps")?.value.member(String(key.dropFirst(4))).map { JSONMember(key: key, value: $0.value, line: $0.line, column: $0.column) }
        }
        if let m = spelled("notificationAction", path: prefix, in: lookup) {
            actions.notificationAction = action(m.value, path: "\(prefix)\(m.key)", line: m.line, column: m.column)
        }
        if let m = spelled("categoryActions", path: prefix, in: lookup) {
            if let elements = m.value.arrayElements {
                if elements.count > CampaignActions.maximumCategoryActions {
                    error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: \(elements.count) actions; iOS shows at most \(CampaignActions.maximumCategoryActions) and MCE refuses more, so remove \(elements.count - CampaignActions.maximumCategoryActions)")
                }
                var ids: [String: Int] = [:]
                for (i, element) in elements.enumerated() {
                    let path = "\(prefix)\(m.key)[\(i)]"
                    guard let button = button(element, path: path) else { continue }
                    if let first = ids[button.id] {
                        error(line: element.line, column: element.column, "`\(path)`: action id \"\(button.id)\" is also the id of \(m.key)[\(first)]; responses name a button by its id, so give each its own `id`")
                        continue
                    }
                    ids[button.id] = i
                    actions.categoryActions.append(button)
                }
            } else {
                error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: expected an array of up to four {name, type, value, destructive, authentication, foreground}, found \(m.value.kindName)")
            }
        }
        if let m = spelled("categoryName", path: prefix, in: lookup) {
            if let s = m.value.stringValue, !s.isBlank { actions.categoryName = s }
            else { error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: expected a non-empty category id string, found \(m.value.compactText)") }
        }
        if let m = spelled("mediaAttachment", path: prefix, in: lookup) {
            if let s = m.value.stringValue, ActionValueCheck.isHTTPS(s) { actions.mediaAttachment = s }
            else { error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: expected an https URL of the image, sound or video (https://cdn.example.com/a.jpg), found \(m.value.compactText)") }
        }
        let aps = lookup("aps").flatMap { $0.value.isNull ? nil : $0 }
        if let aps, aps.value.objectMembers == nil {
            error(line: aps.line, column: aps.column, "`\(prefix)aps`: expected an object like MCE's {\"sound\": \"default\", \"badge\": 1}, found \(aps.value.kindName)")
        }
        if let m = spelled("sound", path: prefix, in: lookup) {
            if let s = m.value.stringValue, !s.isBlank { actions.sound = s }
            else { error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: expected the name of a sound file in the app, or \"default\", found \(m.value.compactText)") }
        }
        if let m = spelled("badge", path: prefix, in: lookup) {
            if let n = m.value.integerValue, n >= 0, n <= Int64(Int32.max) { actions.badge = Int(n) }
            else { error(line: m.line, column: m.column, "`\(prefix)\(m.key)`: expected the app icon's badge number, a whole number >= 0 (0 removes the badge), found \(m.value.compactText)") }
        }
        return actions
    }

    /// `{type, value}`; nil (with diagnostics) when the type is missing or the value is wrong for it.
    /// A calendar action may also be written flat, as MCE's Add to Calendar block does
    /// (`{"type": "calendar", "title": ..., "startDate": ...}`): its event keys are its value.
    private mutating func action(_ value: JSONValue, path: String, line: Int, column: Int) -> NotificationAction? {
        guard let members = value.objectMembers else {
            error(line: line, column: column, "`\(path)`: expected an object {\"type\": ..., \"value\": ...}, found \(value.kindName)")
            return nil
        }
        guard let t = value.member("type"), let type = t.value.stringValue, !type.trimmingSpaces().isEmpty else {
            let at = value.member("type")
            error(line: at?.line ?? line, column: at?.column ?? column, "`\(path).type`: expected an action type (\(ActionKind.predefined.map(\.name).joined(separator: ", ")), or a custom type name), found \(value.member("type").map { $0.value.compactText } ?? "nothing")")
            return nil
        }
        let kind = ActionKind(type: type)
        let v = value.member("value").flatMap { $0.value.isNull ? nil : $0 }
        var actionValue = v?.value
        if kind == .calendar {
            let eventKeys = CampaignVocabulary.known(.calendarEvent).filter { $0 != "type" }
            let flat = members.filter { eventKeys.contains($0.key) }
            if !flat.isEmpty {
                if let nested = v?.value.objectMembers {
                    for m in flat {
                        guard let other = nested.last(where: { $0.key == m.key }) else { continue }
                        if !other.value.sameContent(as: m.value) {
                            error(line: m.line, column: m.column, "`\(path).\(m.key)` (\(m.value.compactText)) and `\(path).value.\(m.key)` (\(other.value.compactText)) are two spellings of the calendar event's \(m.key) and disagree; write the event once, flat or as `value`")
                            return nil
                        }
                    }
                    actionValue = .object(nested + flat.filter { m in !nested.contains { $0.key == m.key } })
                } else if v == nil {
                    actionValue = .object(flat)
                }
            }
        }
        let action = NotificationAction(kind: kind, value: actionValue)
        if let problem = ActionValueCheck.problem(action) {
            error(line: v?.line ?? t.line, column: v?.column ?? t.column, "`\(path).value`: \(problem)")
            return nil
        }
        return action
    }

    /// One `categoryActions` entry: an action plus its title and flags.
    private mutating func button(_ element: JSONElement, path: String) -> ActionButton? {
        let value = element.value
        guard let action = action(value, path: path, line: element.line, column: element.column) else { return nil }
        var ok = true
        var name = ""
        if let m = value.member("name"), let s = m.value.stringValue, !s.trimmingSpaces().isEmpty { name = s } else {
            let m = value.member("name")
            error(line: m?.line ?? element.line, column: m?.column ?? element.column, "`\(path).name`: expected the button title as a non-empty string, found \(m.map { $0.value.compactText } ?? "nothing")")
            ok = false
        }
        var id = name
        if let m = spelled("id", path: "\(path).", in: { value.member($0) }) {
            if let s = m.value.stringValue, !s.trimmingSpaces().isEmpty, s != "default" { id = s } else {
                error(line: m.line, column: m.column, "`\(path).\(m.key)`: expected a non-empty action id other than \"default\" (which names a tap on the notification itself), found \(m.value.compactText)")
                ok = false
            }
        }
        var flags: [Bool] = []
        for key in ["destructive", "authentication", "foreground"] {
            if let m = value.member(key), !m.value.isNull {
                if case .bool(let b) = m.value { flags.append(b); continue }
                error(line: m.line, column: m.column, "`\(path).\(key)`: expected true or false, found \(m.value.compactText)")
                ok = false
            } else if let defaults = action.kind.defaultFlags {
                flags.append(key == "destructive" ? defaults.destructive : key == "authentication" ? defaults.authentication : defaults.foreground)
            } else {
                error(line: element.line, column: element.column, "`\(path)`: action type \"\(action.kind.name)\" must give `\(key)` (true or false); MCE assumes the flags only for rich, dial and url (\"otherwise, those attributes need to be included\")")
                ok = false
            }
        }
        guard ok, flags.count == 3 else { return nil }
        return ActionButton(id: id, name: name, action: action, destructive: flags[0], authentication: flags[1], foreground: flags[2])
    }
}

/// What each predefined action type takes as its value.
enum ActionValueCheck {
    /// Why `action`'s value is wrong for its type, or nil when it is fine.
    static func problem(_ action: NotificationAction) -> String? {
        let found = action.value.map(\.compactText) ?? "nothing"
        switch action.kind {
        case .url:
            guard let s = action.value?.stringValue, isURL(s) else { return "a url action takes a URL with a scheme (https://example.com/offer, or an app link like myapp://offer), found \(found)" }
        case .dial:
            guard let s = action.value?.stringValue, isPhoneNumber(s) else { return "a dial action takes a phone number (+49 30 1234567: digits with an optional leading +, spaces, dashes, dots or parentheses, 3 to 15 digits), found \(found)" }
        case .share:
            guard let s = action.value?.stringValue, !s.trimmingSpaces().isEmpty else { return "a share action takes the text or URL to share as a non-empty string, found \(found)" }
        case .snooze:
            guard action.snoozeMinutes != nil else { return "a snooze action takes whole minutes greater than 0 (10 or \"10\"), found \(found)" }
        case .calendar:
            return calendarProblem(action.value)
        case .passbook, .displayWebView:
            guard let s = action.value?.stringValue, isHTTPS(s) else { return "a \(action.kind.name) action takes an https URL only (https://example.com/pass.pkpass), found \(found)" }
        case .rich:
            guard let s = action.value?.stringValue, !s.trimmingSpaces().isEmpty else { return "a rich action takes the inbox message id as a non-empty string, found \(found)" }
        case .textInput:
            let expected = "a textInput action takes {\"placeholder\": \"Your answer\", \"buttonTitle\": \"Send\"} (the text field's placeholder and its submit button's title)"
            guard let value = action.value, value.objectMembers != nil else { return "\(expected), found \(found)" }
            for key in ["placeholder", "buttonTitle"] {
                guard let s = value[key]?.stringValue, !s.trimmingSpaces().isEmpty else { return "\(expected); `\(key)` is missing or not a non-empty string" }
            }
        case .showActions:
            guard let items = action.value?.arrayElements, !items.isEmpty else {
                return "a showactions action (the Action Menu) takes a non-empty list of actions [{\"name\": \"Website\", \"type\": \"url\", \"value\": \"https://...\"}, ...], found \(found)"
            }
            for (i, item) in items.enumerated() {
                guard let type = item.value["type"]?.stringValue, let name = item.value["name"]?.stringValue, !name.trimmingSpaces().isEmpty else {
                    return "the Action Menu's action \(i + 1) needs a `name` (its title in the menu) and a `type`, found \(item.value.compactText)"
                }
                let inner = NotificationAction(kind: ActionKind(type: type), value: item.value["value"].flatMap { $0.isNull ? nil : $0 })
                if inner.kind == .showActions { return "the Action Menu's action \(i + 1) is itself a showactions menu; a menu lists actions, not menus" }
                if let problem = problem(inner) { return "the Action Menu's action \(i + 1) (\"\(name)\"): \(problem)" }
            }
        case .carousel:
            guard let items = action.value?.arrayElements, !items.isEmpty else {
                return "a carousel action takes a non-empty list of images [{\"url\": \"https://cdn.example.com/1.jpg\", \"text\": \"...\"}, ...], found \(found)"
            }
            for (i, item) in items.enumerated() {
                guard let url = item.value["url"]?.stringValue, isHTTPS(url) else {
                    return "the carousel's image \(i + 1) needs an https `url` (the device downloads it; https only), found \(item.value["url"]?.compactText ?? "nothing")"
                }
                if let text = item.value["text"], !text.isNull, text.stringValue == nil { return "the carousel's image \(i + 1) has a `text` that is not a string: \(text.compactText)" }
            }
        case .openApp, .custom:
            break
        }
        return nil
    }

    /// `{title, startDate, endDate, timeZone, interactive, description}` with real dates, end not before start.
    static func calendarProblem(_ value: JSONValue?) -> String? {
        let expected = "expected {\"title\": ..., \"startDate\": \"2026-06-05T18:00:00Z\", \"endDate\": ..., \"timeZone\": \"GMT\", \"interactive\": true, \"description\": ...}"
        guard let value, value.objectMembers != nil else { return "a calendar action takes an event object; \(expected), found \(value.map(\.compactText) ?? "nothing")" }
        guard let title = value["title"]?.stringValue, !title.trimmingSpaces().isEmpty else { return "the calendar event has no `title` (a non-empty string); \(expected)" }
        var dates: [Timestamp] = []
        for key in ["startDate", "endDate"] {
            guard let text = value[key]?.stringValue else { return "the calendar event has no `\(key)` string; \(expected)" }
            guard case .time(let t, _) = Timestamp.parseRFC3339(text) else { return "the calendar event's `\(key)` \"\(text)\" is not a date; expected RFC 3339 like 2026-06-05T18:00:00Z" }
            dates.append(t)
        }
        if dates[1] < dates[0] { return "the calendar event ends (endDate) before it starts (startDate)" }
        if let tz = value["timeZone"], !tz.isNull, (tz.stringValue ?? "").trimmingSpaces().isEmpty { return "the calendar event's `timeZone` must be a zone name like \"GMT\" or \"Europe/Berlin\", found \(tz.compactText)" }
        if let i = value["interactive"], !i.isNull, i != .bool(true), i != .bool(false) { return "the calendar event's `interactive` must be true or false, found \(i.compactText)" }
        if let d = value["description"], !d.isNull, d.stringValue == nil { return "the calendar event's `description` must be a string, found \(d.compactText)" }
        return nil
    }

    /// A scheme (`https`, `myapp`) and something after its colon; http(s) also need a host.
    static func isURL(_ s: String) -> Bool {
        guard let colon = s.firstIndex(of: ":"), colon > s.startIndex else { return false }
        let scheme = s[..<colon].lowercased()
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
              scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return false }
        let rest = s[s.index(after: colon)...]
        if scheme == "http" || scheme == "https" { return hasHost(rest) }
        return !rest.isEmpty && !rest.contains(" ")
    }

    static func isHTTPS(_ s: String) -> Bool {
        guard s.lowercased().hasPrefix("https:") else { return false }
        return hasHost(s.dropFirst(6))
    }

    private static func hasHost(_ rest: Substring) -> Bool {
        guard rest.hasPrefix("//") else { return false }
        let host = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !host.isEmpty && !host.contains(" ") && !rest.contains(" ")
    }

    static func isPhoneNumber(_ s: String) -> Bool {
        var digits = 0
        for (i, c) in s.unicodeScalars.enumerated() {
            if ("0"..."9").contains(c) { digits += 1 }
            else if c == "+" { if i != 0 { return false } }
            else if !" -.()".unicodeScalars.contains(c) { return false }
        }
        return (3...15).contains(digits)
    }
}
