/// Reads the Sensorberg campaign format in its three shapes (layout, array of actions, one action)
/// and collects every problem with its file and line instead of stopping at the first.
public struct CampaignDecoder {
    /// The file name diagnostics and campaigns' `location` give.
    public let file: String
    /// Every problem found so far, errors and warnings, in the order met.
    public private(set) var diagnostics: [Diagnostic] = []
    /// Errors among `diagnostics`, counted as they are added: each action compares it before and
    /// after, and filtering the whole list instead made a file of many warnings quadratic.
    private var errorCount = 0

    /// A decoder for the campaigns of `file` (only named in diagnostics: the decoder reads no
    /// file).
    public init(file: String) { self.file = file }

    /// Decodes a parsed document. Errors land in `diagnostics`; campaigns with errors are left out.
    public mutating func decode(document: JSONValue) -> [Campaign] {
        switch document {
        case .array(let elements):
            return decodeActions(elements, path: "", instant: false)
        case .object(let members):
            let keys = Set(members.map(\.key))
            if keys.contains("tillVersionId") || keys.contains("requestedVersionId")
                || (keys.contains("beacons") && keys.contains("actions") && !keys.contains("accountProximityUUIDs")) {
                error(line: 1, "this is a Sensorberg backend sync input (it has `beacons` and `tillVersionId`), not a campaign layout; give the layout the resolver produced from it (`accountProximityUUIDs`, `actions`, `instantActions`)")
                return []
            }
            if keys.contains("actions") || keys.contains("instantActions") || keys.contains("accountProximityUUIDs") {
                var campaigns: [Campaign] = []
                for key in ["actions", "instantActions"] {
                    guard let member = document.member(key) else { continue }
                    switch member.value {
                    case .array(let elements): campaigns += decodeActions(elements, path: key, instant: key == "instantActions")
                    case .null: break
                    default: error(line: member.line, "`\(key)` must be an array of actions, found \(member.value.kindName)")
                    }
                }
                return campaigns
            }
            if keys.contains("eid") {
                return decodeAction(document, path: "", line: 1, instant: false).map { [$0] } ?? []
            }
            error(line: 1, "not a campaign file: expected a layout object with `actions`, an array of actions, or one action with `eid`")
            return []
        default:
            error(line: 1, "not a campaign file: expected a layout object, an array of actions or one action, found \(document.kindName)")
            return []
        }
    }

    mutating func decodeActions(_ elements: [JSONElement], path: String, instant: Bool) -> [Campaign] {
        var campaigns: [Campaign] = []
        for (i, element) in elements.enumerated() {
            if let campaign = decodeAction(element.value, path: path.isEmpty ? "[\(i)]" : "\(path)[\(i)]", line: element.line, instant: instant) {
                campaigns.append(campaign)
            }
        }
        return campaigns
    }

    /// Decodes one action; nil (with diagnostics) when it has errors.
    public mutating func decodeAction(_ value: JSONValue, path: @autoclosure () -> String, line: Int, instant: Bool) -> Campaign? {
        let errorsBefore = errorCount
        func prefix() -> String { path().isEmpty ? "" : "\(path())." }
        guard let members = value.objectMembers else {
            error(line: line, "\(path().isEmpty ? "the action" : "`\(path())`") must be an object, found \(value.kindName)")
            return nil
        }
        let fields = ActionFields(members)
        func field(_ key: String) -> JSONMember? {
            guard let m = fields.member(key), !m.value.isNull else { return nil }
            return m
        }
        func fail(_ m: JSONMember, _ message: String) { error(line: m.line, column: m.column, "`\(prefix())\(m.key)`: \(message)") }

        var eid = ""
        if let m = field("eid") {
            if let s = m.value.stringValue, !s.isBlank { eid = s } else { fail(m, "expected a non-empty string, found \(m.value.kindName)") }
        } else {
            let hint = value.member("id") != nil ? " (it has `id`: this looks like backend sync input, not a layout action)" : ""
            error(line: line, "`\(path().isEmpty ? "action" : path())`: missing `eid` (the campaign id)\(hint)")
        }

        var trigger = Trigger.enterExit
        if let m = field("trigger") {
            switch m.value {
            case .number:
                switch m.value.integerValue {
                case 1: trigger = .enter
                case 2: trigger = .exit
                case 3: trigger = .enterExit
                default: fail(m, "expected 1 (enter), 2 (exit) or 3 (both), found \(m.value.compactText)")
                }
            case .string(let s):
                switch s.lowercased() {
                case "enter", "entry": trigger = .enter
                case "exit": trigger = .exit
                case "enterexit", "both": trigger = .enterExit
                default: fail(m, "expected \"enter\", \"exit\" or \"enterExit\", found \"\(s)\"")
                }
            default: fail(m, "expected 1, 2, 3 or \"enter\"/\"exit\"/\"enterExit\", found \(m.value.kindName)")
            }
        }

        var actionType = ActionType.notification
        if let m = field("type") {
            if let n = m.value.integerValue, let t = ActionType(rawValue: Int(n)) { actionType = t }
            else if let s = m.value.stringValue, let t = ActionType(name: s) { actionType = t }
            else { fail(m, "expected 1 (notification), 2 (website), 3 (in-app) or 4 (silent), found \(m.value.compactText)") }
        } else if let m = field("typeString") {
            if let s = m.value.stringValue, let t = ActionType(name: s) { actionType = t }
            else { fail(m, "expected \"notification\", \"website\", \"function\" or \"silent\", found \(m.value.compactText)") }
        } else {
            error(line: line, "`\(path().isEmpty ? "action" : path())`: missing `type` (1 notification, 2 website, 3 in-app, 4 silent) or `typeString`")
        }

        var beacons: [BeaconPattern] = []
        if let m = field("beacons") {
            if let elements = m.value.arrayElements {
                for (i, element) in elements.enumerated() {
                    guard let s = element.value.stringValue else {
                        error(line: element.line, column: element.column, "`\(prefix())beacons[\(i)]`: expected a beacon id string, found \(element.value.kindName)")
                        continue
                    }
                    if let pattern = BeaconPattern(entry: s) { beacons.append(pattern) } else {
                        error(line: element.line, column: element.column, "`\(prefix())beacons[\(i)]`: \"\(s)\" is not a beacon: expected a 42-char pid (32 hex + 5-digit major + 5-digit minor), a 32-hex proximity UUID or a 14-char geofence id")
                    }
                }
            } else { fail(m, "expected an array of beacon ids, found \(m.value.kindName)") }
        }

        var timeframes: [Timeframe] = []
        if let m = field("timeframes") {
            if let elements = m.value.arrayElements {
                for (i, element) in elements.enumerated() {
                    func framePath() -> String { "\(prefix())timeframes[\(i)]" }
                    guard element.value.objectMembers != nil else {
                        error(line: element.line, column: element.column, "`\(framePath())`: expected an object with `start` and `end`, found \(element.value.kindName)")
                        continue
                    }
                    let start = bound(element.value.member("start"), path: "\(framePath()).start")
                    let end = bound(element.value.member("end"), path: "\(framePath()).end")
                    timeframes.append(Timeframe(start: start, end: end))
                }
            } else { fail(m, "expected an array of {start, end}, found \(m.value.kindName)") }
        }

        var suppression = Suppression.none
        if let m = spelled("suppressionTime", path: prefix(), in: field) {
            if let seconds = m.value.doubleValue {
                if seconds == -1 { suppression = .none }
                else if seconds == 0 { suppression = .once }
                else if seconds > 0 && seconds < 1e12 { suppression = .interval(milliseconds: Int64((seconds * 1000).rounded())) }
                else if seconds >= 1e12 { fail(m, "expected at most 999999999999 seconds (use 0 for once per device), found \(m.value.compactText)") }
                else { fail(m, "expected seconds > 0, 0 (once per device) or -1 (no suppression), found \(m.value.compactText)") }
            } else { fail(m, "expected a number of seconds, found \(m.value.kindName)") }
        }

        var sendOnlyOnce = false
        if let m = field("sendOnlyOnce") {
            if case .bool(let b) = m.value { sendOnlyOnce = b } else { fail(m, "expected true or false, found \(m.value.compactText)") }
        }

        var delay: Int64 = 0
        if let m = field("delay") {
            if let seconds = m.value.doubleValue, seconds >= 0, seconds < 1e12 { delay = Int64((seconds * 1000).rounded()) }
            else { fail(m, "expected a number of seconds >= 0, found \(m.value.compactText)") }
        }

        let deliverAt = bound(field("deliverAt"), path: "\(prefix())deliverAt")

        var dwell: Int64 = 0
        if let m = field("dwell") {
            if let seconds = m.value.doubleValue, seconds >= 0, seconds < 1e9 { dwell = Int64((seconds * 1000).rounded()) }
            else { fail(m, "expected a number of seconds >= 0 (how long the device must stay), found \(m.value.compactText)") }
            if dwell > 0 && trigger == .exit { fail(m, "dwell applies to entering; this action's trigger is exit only: use trigger 1 or 3, or remove dwell") }
        }

        var content = CampaignContent()
        if let m = field("content") {
            if m.value.objectMembers != nil {
                for key in ["subject", "body", "url"] {
                    guard let c = m.value.member(key), !c.value.isNull else { continue }
                    guard let s = c.value.stringValue else {
                        error(line: c.line, column: c.column, "`\(prefix())content.\(key)`: expected a string or null, found \(c.value.kindName)")
                        continue
                    }
                    switch key {
                    case "subject": content.subject = s
                    case "body": content.body = s
                    default: content.url = s
                    }
                }
                content.payload = m.value.member("payload")?.value
            } else { fail(m, "expected an object {subject, body, url, payload}, found \(m.value.kindName)") }
        }

        var onEnter: LocalizedBlock?
        var onExit: LocalizedBlock?
        if let payload = content.payload, payload.objectMembers != nil {
            onEnter = localizedBlock(payload.member("onEnter"), path: "\(prefix())content.payload.onEnter")
            onExit = localizedBlock(payload.member("onExit"), path: "\(prefix())content.payload.onExit")
        }

        let actions = campaignActions(fields, prefix: prefix())

        guard errorCount == errorsBefore else { return nil }
        var campaign = Campaign(
            eid: eid, trigger: trigger, actionType: actionType, beacons: beacons, timeframes: timeframes,
            suppression: suppression, sendOnlyOnce: sendOnlyOnce, delayMilliseconds: delay, deliverAt: deliverAt,
            content: content, isInstant: instant, name: fields.member("name")?.value.stringValue, onEnter: onEnter, onExit: onExit,
            origin: SourceLocation(file: file, line: line), source: value)
        campaign.actions = actions
        campaign.dwellMilliseconds = dwell
        return campaign
    }

    /// A timeframe bound or `deliverAt`: RFC 3339 (no zone = UTC), epoch ms, or null.
    mutating func bound(_ member: JSONMember?, path: @autoclosure () -> String) -> Timestamp? {
        guard let m = member, !m.value.isNull else { return nil }
        switch m.value {
        case .string(let s):
            switch Timestamp.parseRFC3339(s) {
            case .time(let t, _): return t
            case .timeOfDayOnly:
                warning(line: m.line, column: m.column, "`\(path())`: \"\(s)\" has no date; the bound is treated as absent")
                return nil
            case .invalid(let reason):
                error(line: m.line, column: m.column, "`\(path())`: \"\(s)\" is not a date (\(reason)); expected RFC 3339 like 2016-05-10T14:15:00.000+0200")
                return nil
            }
        case .number:
            if let ms = m.value.integerValue { return Timestamp(milliseconds: ms) }
            error(line: m.line, column: m.column, "`\(path())`: expected epoch milliseconds as an integer, found \(m.value.compactText)")
            return nil
        default:
            error(line: m.line, column: m.column, "`\(path())`: expected an RFC 3339 date string, found \(m.value.kindName)")
            return nil
        }
    }

    mutating func localizedBlock(_ member: JSONMember?, path: @autoclosure () -> String) -> LocalizedBlock? {
        guard let m = member, !m.value.isNull else { return nil }
        guard let members = m.value.objectMembers else {
            error(line: m.line, column: m.column, "`\(path())`: expected an object of language blocks, found \(m.value.kindName)")
            return nil
        }
        var block = LocalizedBlock(languages: [])
        if let item = spelled("confirmAction", path: "\(path()).", in: { key in members.last { $0.key == key && !$0.value.isNull } }) {
            if let s = item.value.stringValue, let action = ConfirmAction(rawValue: s.lowercased()) { block.confirmAction = action }
            else { error(line: item.line, column: item.column, "`\(path()).\(item.key)`: expected \"open\" or \"share\", found \(item.value.compactText)") }
        }
        let confirmSpellings = CampaignVocabulary.spellings(of: "confirmAction")
        for item in members where !confirmSpellings.contains(item.key) {
            func at() -> String { "\(path()).\(item.key)" }
            switch item.key {
            case "actInForeground":
                if case .bool(let b) = item.value { block.actInForeground = b }
                else if !item.value.isNull { error(line: item.line, column: item.column, "`\(at())`: expected true or false, found \(item.value.compactText)") }
            default:
                guard let strings = item.value.objectMembers else { continue }
                var table: [String: String] = Dictionary(minimumCapacity: strings.count)
                for s in strings {
                    if let text = s.value.stringValue { table[s.key] = text }
                    else if !s.value.isNull { error(line: s.line, column: s.column, "`\(at()).\(s.key)`: expected a string, found \(s.value.kindName)") }
                }
                block.languages.append(LanguageStrings(key: item.key, strings: table))
            }
        }
        return block
    }

    /// `canonical` under any of its spellings (`CampaignVocabulary.spellings`), null taken as
    /// absent; two spellings that disagree are an error naming both, and the field is left unread,
    /// except where the SPEC says which one is read (`CampaignVocabulary.readOnlyWhenAbsent`): then
    /// the canonical key is read and a warning names both.
    mutating func spelled(_ canonical: String, path: String, in lookup: (String) -> JSONMember?) -> JSONMember? {
        switch SpelledField(canonical, in: { key in lookup(key).flatMap { $0.value.isNull ? nil : $0 } }) {
        case .absent: return nil
        case .found(let m): return m
        case .conflict(let a, let b) where a.key == canonical && CampaignVocabulary.readOnlyWhenAbsent.contains(b.key):
            warning(line: b.line, column: b.column, SpelledField.conflictMessage(a, b, path: path, reading: a))
            return a
        case .conflict(let a, let b) where b.key == canonical && CampaignVocabulary.readOnlyWhenAbsent.contains(a.key):
            warning(line: a.line, column: a.column, SpelledField.conflictMessage(a, b, path: path, reading: b))
            return b
        case .conflict(let a, let b):
            error(line: b.line, column: b.column, SpelledField.conflictMessage(a, b, path: path))
            return nil
        }
    }

    mutating func error(line: Int, column: Int? = nil, _ message: String) {
        diagnostics.append(Diagnostic(.error, SourceLocation(file: file, line: line, column: column), message))
        errorCount += 1
    }

    mutating func warning(line: Int, column: Int? = nil, _ message: String) {
        diagnostics.append(Diagnostic(.warning, SourceLocation(file: file, line: line, column: column), message))
    }
}

extension ActionType {
    /// `notification`, `website`, `function`/`inApp`, `silent` (as `typeString` and XML write them).
    public init?(name: String) {
        switch name.lowercased() {
        case "notification": self = .notification
        case "website", "url": self = .website
        case "function", "inapp", "in-app", "in_app": self = .inApp
        case "silent": self = .silent
        default: return nil
        }
    }
}

extension String {
    /// Empty or only spaces and tabs: `trimmingSpaces().isEmpty` without making the trimmed string.
    var isBlank: Bool { utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
}
