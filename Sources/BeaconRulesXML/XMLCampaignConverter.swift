package import BeaconRules

/// One `<campaign>` as the Sensorberg action object it stands for, ready for `CampaignDecoder`.
package struct ConvertedAction: Sendable {
    /// The action object; its members carry the XML line and column they came from, so that the
    /// decoder's and lint's messages point into the XML file.
    package var action: JSONValue
    /// The line of the `<campaign>` start tag.
    package var line: Int
    /// `instant="true"`: the action rides along with every event (a layout's `instantActions`).
    package var instant: Bool
}

/// Turns the parsed `<campaigns>` tree into Sensorberg action objects, checking every element and
/// attribute on the way. The JSON decoder then makes the campaigns, so that XML and JSON share one
/// behaviour; this layer only speaks for the XML spelling of things.
struct XMLCampaignConverter {
    let file: String
    private(set) var problems: [XMLCampaignError] = []

    init(file: String) { self.file = file }

    /// Every problem the converter records is an error (`error(at:)` is the only way one is added).
    var errorCount: Int { problems.count }

    mutating func convert(root: ParsedElement) -> [ConvertedAction] {
        guard root.name == "campaigns" else {
            let hint = root.name == "campaign" ? "; wrap the <campaign> elements in <campaigns xmlns=\"\(XMLCampaignSchema.namespace)\">" : ""
            error(at: root.position, "the root element is <\(root.name)>; expected <campaigns xmlns=\"\(XMLCampaignSchema.namespace)\">\(hint)")
            return []
        }
        if let ns = root.namespace, ns != XMLCampaignSchema.namespace {
            error(at: root.position, "<campaigns> is in namespace \"\(ns)\"; expected xmlns=\"\(XMLCampaignSchema.namespace)\"")
            return []
        }
        checkShape(root, namespace: root.namespace)
        var actions: [ConvertedAction] = []
        for child in root.children where child.name == "campaign" && child.namespace == root.namespace {
            if let action = campaign(child, namespace: root.namespace) { actions.append(action) }
        }
        return actions
    }

    // MARK: - Elements

    private mutating func campaign(_ e: ParsedElement, namespace: String?) -> ConvertedAction? {
        let errorsBefore = errorCount
        checkShape(e, namespace: namespace)
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue, _ at: TextPosition) {
            members.append(JSONMember(key: key, value: value, line: at.line, column: at.column))
        }

        if let a = e.attribute("eid") {
            if a.value.unicodeScalars.allSatisfy(ParsedElement.isSpace) {
                error(at: a.position, "eid is empty; give every campaign a unique, non-empty id, e.g. eid=\"spring-sale-entrance\"")
            } else { add("eid", .string(a.value), a.position) }
        } else {
            error(at: e.position, "<campaign> has no eid attribute; give every campaign a unique id, e.g. <campaign eid=\"spring-sale-entrance\" ...>")
        }
        if let a = e.attribute("name") { add("name", .string(a.value), a.position) }
        if let a = e.attribute("trigger") {
            if let code = code(a, in: XMLCampaignSchema.triggers, what: "trigger") { add("trigger", .number(String(code)), a.position) }
        }
        if let a = e.attribute("type") {
            if let code = code(a, in: XMLCampaignSchema.types, what: "type") { add("type", .number(String(code)), a.position) }
        } else {
            error(at: e.position, "<campaign> has no type attribute; expected type=\"notification\", \"website\", \"inApp\" or \"silent\"")
        }

        var beacons: [JSONElement] = []
        var timeframes: [JSONElement] = []
        var content: ParsedElement?
        var blocks: [(key: String, element: ParsedElement)] = []
        var categoryActions: [JSONElement] = []
        for child in e.children where child.namespace == namespace {
            switch child.name {
            case "notificationAction":
                if members.contains(where: { $0.key == "notificationAction" }) {
                    error(at: child.position, "a second <notificationAction> in this <campaign>; a campaign has at most one")
                } else if let action = action(child) {
                    add("notificationAction", action, child.position)
                }
            case "categoryAction":
                if let action = action(child) { categoryActions.append(JSONElement(value: action, line: child.position.line, column: child.position.column)) }
            case "categoryName", "mediaAttachment":
                checkShape(child, namespace: namespace)
                if members.contains(where: { $0.key == child.name }) {
                    error(at: child.position, "a second <\(child.name)> in this <campaign>; give it once")
                } else {
                    add(child.name, .string(trimmed(child.text)), child.contentPosition)
                }
            case "beacon":
                if let entry = beacon(child) { beacons.append(JSONElement(value: .string(entry), line: child.position.line, column: child.position.column)) }
            case "timeframe":
                checkShape(child, namespace: namespace)
                var frame: [JSONMember] = []
                for key in ["start", "end"] {
                    guard let a = child.attribute(key) else { continue }
                    if date(a) { frame.append(JSONMember(key: key, value: .string(a.value), line: a.position.line, column: a.position.column)) }
                }
                timeframes.append(JSONElement(value: .object(frame), line: child.position.line, column: child.position.column))
            case "content":
                if content != nil { error(at: child.position, "a second <content> in this <campaign>; a campaign has at most one") } else { content = child }
            case "onEnter", "onExit":
                if blocks.contains(where: { $0.key == child.name }) {
                    error(at: child.position, "a second <\(child.name)> in this <campaign>; a campaign has at most one")
                } else { blocks.append((child.name, child)) }
            default: break // reported by checkShape
            }
        }
        if !beacons.isEmpty { add("beacons", .array(beacons), beacons[0].position) }
        if !timeframes.isEmpty { add("timeframes", .array(timeframes), timeframes[0].position) }
        if !categoryActions.isEmpty { add("categoryActions", .array(categoryActions), categoryActions[0].position) }
        if let a = e.attribute("suppressionTime"), number(a) { add("suppressionTime", .number(trimmed(a.value)), a.position) }
        if let a = e.attribute("sendOnlyOnce"), let b = boolean(a) { add("sendOnlyOnce", .bool(b), a.position) }
        if let a = e.attribute("delay"), number(a) { add("delay", .number(trimmed(a.value)), a.position) }
        if let a = e.attribute("dwell"), number(a) { add("dwell", .number(trimmed(a.value)), a.position) }
        if let a = e.attribute("deliverAt"), date(a) { add("deliverAt", .string(a.value), a.position) }
        if let a = e.attribute("sound") { add("sound", .string(a.value), a.position) }
        if let a = e.attribute("badge"), number(a) { add("badge", .number(trimmed(a.value)), a.position) }
        let instant = e.attribute("instant").flatMap { boolean($0) } ?? false
        if let contentMember = self.content(content, blocks: blocks, namespace: namespace, campaign: e) {
            members.append(contentMember)
        }

        guard errorCount == errorsBefore else { return nil }
        return ConvertedAction(action: .object(members), line: e.position.line, instant: instant)
    }

    /// `<notificationAction>` or `<categoryAction>` as its JSON object: string attributes as strings,
    /// the three flags as booleans, and the value either as the `value` attribute (a string) or as
    /// a `<value>` element holding JSON (a number, or a calendar event object).
    private mutating func action(_ e: ParsedElement) -> JSONValue? {
        checkShape(e, namespace: e.namespace)
        var members: [JSONMember] = []
        for a in e.attributes where XMLCampaignSchema.attributes[e.name]!.contains(a.name) {
            if ["destructive", "authentication", "foreground"].contains(a.name) {
                guard let b = boolean(a) else { return nil }
                members.append(JSONMember(key: a.name, value: .bool(b), line: a.position.line, column: a.position.column))
            } else {
                members.append(JSONMember(key: a.name, value: .string(a.value), line: a.position.line, column: a.position.column))
            }
        }
        let values = e.children.filter { $0.name == "value" && $0.namespace == e.namespace }
        if let v = values.first {
            checkShape(v, namespace: e.namespace)
            if members.contains(where: { $0.key == "value" }) || values.count > 1 {
                error(at: v.position, "<\(e.name)> gives its value twice; use the value attribute for text, or one <value> element holding JSON")
                return nil
            }
            do {
                let parsed = try JSONParser.parse(v.text)
                members.append(JSONMember(key: "value", value: Self.shift(parsed, to: v.contentPosition), line: v.contentPosition.line, column: v.contentPosition.column))
            } catch {
                self.error(at: Self.shift(line: error.line, column: error.column, to: v.contentPosition), "<value> is not JSON: \(error.message); write the value as JSON, e.g. <value>10</value> or <value>{\"title\": \"Tour\", ...}</value>")
                return nil
            }
        }
        return .object(members)
    }

    /// `<beacon>` as a `beacons` entry: the text as written, or `uuid` (+ `major` and `minor`).
    private mutating func beacon(_ e: ParsedElement) -> String? {
        checkShape(e, namespace: e.namespace)
        let text = trimmed(e.text)
        let uuid = e.attribute("uuid"), major = e.attribute("major"), minor = e.attribute("minor")
        let expected = "expected a 42-char pid as text (32 hex proximity UUID + 5-digit major + 5-digit minor), or uuid=\"...\" with major and minor (0...65535), or uuid alone for every beacon of that UUID"
        if !text.isEmpty {
            if uuid != nil || major != nil || minor != nil {
                error(at: e.position, "<beacon> has both text and uuid/major/minor attributes; give one or the other")
                return nil
            }
            if BeaconPattern(entry: text) != nil { return text }
            let compact = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "-" }))
            let reason = compact.utf8.count == 42 ? (BeaconID.pidProblem(compact) ?? "it is not a pid") : "it has \(compact.utf8.count) characters (dashes ignored)"
            error(at: e.contentPosition, "<beacon>\(text)</beacon> is not a beacon: \(reason); \(expected)")
            return nil
        }
        guard let uuid else {
            error(at: e.position, (major ?? minor) != nil ? "<beacon> has major/minor but no uuid; \(expected)" : "empty <beacon>; \(expected)")
            return nil
        }
        guard let id = ProximityUUID(text: trimmed(uuid.value)) else {
            error(at: uuid.position, "uuid=\"\(uuid.value)\" is not a proximity UUID; expected 32 hex digits, dashes allowed (73676723-7400-0000-ffff-0000ffff0001)")
            return nil
        }
        switch (major, minor) {
        case (nil, nil):
            return id.description
        case (let major?, let minor?):
            guard let majorValue = beaconNumber(major), let minorValue = beaconNumber(minor) else { return nil }
            return id.description + pad5(majorValue) + pad5(minorValue)
        default:
            error(at: (major ?? minor)!.position, "<beacon> has \(major == nil ? "minor" : "major") but not \(major == nil ? "major" : "minor"); give both, or neither to match every beacon of the UUID")
            return nil
        }
    }

    private mutating func beaconNumber(_ a: ParsedAttribute) -> Int? {
        let text = trimmed(a.value)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text), value <= 65535 { return value }
        error(at: a.position, "\(a.name)=\"\(a.value)\" is not a beacon \(a.name); expected a whole number 0...65535")
        return nil
    }

    private func pad5(_ value: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: 5 - digits.count) + digits
    }

    /// `<content>` and the `<onEnter>`/`<onExit>` blocks as the action's `content` member.
    private mutating func content(_ element: ParsedElement?, blocks: [(key: String, element: ParsedElement)], namespace: String?, campaign: ParsedElement) -> JSONMember? {
        guard element != nil || !blocks.isEmpty else { return nil }
        var members: [JSONMember] = []
        var payload: JSONMember?
        let at = element?.position ?? blocks[0].element.position
        if let element {
            checkShape(element, namespace: namespace)
            var seen: Set<String> = []
            for child in element.children where child.namespace == namespace && XMLCampaignSchema.children["content"]!.contains(child.name) {
                checkShape(child, namespace: namespace)
                guard seen.insert(child.name).inserted else {
                    error(at: child.position, "a second <\(child.name)> in <content>; give it once")
                    continue
                }
                if child.name == "payload" {
                    payload = self.payload(child)
                } else {
                    members.append(JSONMember(key: child.name, value: .string(child.text), line: child.contentPosition.line, column: child.contentPosition.column))
                }
            }
        }
        if !blocks.isEmpty {
            var merged: [JSONMember] = []
            var payloadAt = at
            if let payload {
                payloadAt = TextPosition(line: payload.line, column: payload.column)
                switch payload.value {
                case .object(let existing): merged = existing
                default:
                    error(at: blocks[0].element.position, "<\(blocks[0].key)> can not be merged into <payload>: the payload is \(payload.value.kindName), not a JSON object; make the payload an object or leave it out")
                }
            }
            for (key, block) in blocks {
                if merged.contains(where: { $0.key == key }) {
                    error(at: block.position, "<\(key)> and the payload's own \"\(key)\" member both give the \(key) block; keep one of them")
                    continue
                }
                merged.append(JSONMember(key: key, value: localizedBlock(block), line: block.position.line, column: block.position.column))
            }
            payload = JSONMember(key: "payload", value: .object(merged), line: payloadAt.line, column: payloadAt.column)
        }
        if let payload { members.append(payload) }
        return JSONMember(key: "content", value: .object(members), line: at.line, column: at.column)
    }

    /// `<payload>`: JSON text; a syntax error is reported at its place in the XML file.
    private mutating func payload(_ e: ParsedElement) -> JSONMember? {
        let origin = e.contentPosition
        guard e.hasText else {
            error(at: e.position, "<payload> is empty; write a JSON value ({\"key\": \"value\"}, null, ...) or leave the element out")
            return nil
        }
        do {
            let value = try JSONParser.parse(e.text)
            return JSONMember(key: "payload", value: Self.shift(value, to: origin), line: origin.line, column: origin.column)
        } catch {
            let at = Self.shift(line: error.line, column: error.column, to: origin)
            self.error(at: at, "<payload> is not JSON: \(error.message); write the payload as a JSON value, e.g. {\"room\": 2} (inside <![CDATA[ ... ]]> if it holds < or &)")
            return nil
        }
    }

    /// `<onEnter>`/`<onExit>` as the payload block of SPEC section 2.
    private mutating func localizedBlock(_ e: ParsedElement) -> JSONValue {
        checkShape(e, namespace: e.namespace)
        var members: [JSONMember] = []
        if let a = e.attribute("confirmAction") {
            if ["open", "share"].contains(a.value.lowercased()) {
                members.append(JSONMember(key: "confirmAction", value: .string(a.value), line: a.position.line, column: a.position.column))
            } else {
                error(at: a.position, "confirmAction=\"\(a.value)\" is not a confirm action; expected \"open\" or \"share\"")
            }
        }
        if let a = e.attribute("actInForeground"), let b = boolean(a) {
            members.append(JSONMember(key: "actInForeground", value: .bool(b), line: a.position.line, column: a.position.column))
        }
        var languages: Set<String> = []
        for strings in e.children where strings.name == "strings" && strings.namespace == e.namespace {
            checkShape(strings, namespace: e.namespace)
            guard let lang = strings.attribute("lang"), !trimmed(lang.value).isEmpty else {
                error(at: strings.position, "<strings> has no lang; give the language of these strings, e.g. lang=\"de\" or lang=\"pt-BR\"")
                continue
            }
            guard languages.insert(LanguageTag.normalize(lang.value)).inserted else {
                error(at: lang.position, "lang=\"\(lang.value)\" appears twice in <\(e.name)>; give each language once")
                continue
            }
            let table = strings.attributes.filter { $0.name != "lang" && XMLCampaignSchema.attributes["strings"]!.contains($0.name) }
                .map { JSONMember(key: $0.name, value: .string($0.value), line: $0.position.line, column: $0.position.column) }
            members.append(JSONMember(key: lang.value, value: .object(table), line: strings.position.line, column: strings.position.column))
        }
        return .object(members)
    }

    // MARK: - Checks shared by all elements

    /// Unknown attributes, unknown child elements and stray text, each with the name that was meant.
    private mutating func checkShape(_ e: ParsedElement, namespace: String?) {
        // Text-only elements get one message about holding an element, not one per child.
        let textOnly = ["beacon", "subject", "body", "url", "payload", "categoryName", "mediaAttachment", "value"]
        let validAttributes = XMLCampaignSchema.attributes[e.name] ?? []
        for a in e.attributes where !validAttributes.contains(a.name) {
            error(at: a.position, XMLCampaignSchema.unknown("attribute", a.name, in: e.name, valid: validAttributes))
        }
        let validChildren = XMLCampaignSchema.children[e.name] ?? []
        for child in e.children {
            if child.namespace != namespace {
                error(at: child.position, "<\(child.name)> is in namespace \"\(child.namespace ?? "none")\"; every element of an export is in \"\(namespace ?? "none")\"")
            } else if !validChildren.contains(child.name) && !textOnly.contains(e.name) {
                error(at: child.position, XMLCampaignSchema.unknown("element", child.name, in: e.name, valid: validChildren))
            }
        }
        let textAllowed = textOnly.contains(e.name)
        if !textAllowed && e.hasText {
            error(at: e.contentPosition, "<\(e.name)> holds text; only <beacon>, <subject>, <body>, <url>, <payload>, <categoryName>, <mediaAttachment> and <value> do (is a tag missing?)")
        }
        if textAllowed && !e.children.isEmpty {
            error(at: e.children[0].position, "<\(e.name)> holds an element; it takes text only (wrap markup in <![CDATA[ ... ]]>)")
        }
    }

    // MARK: - Attribute values

    private mutating func code(_ a: ParsedAttribute, in table: [(name: String, code: Int)], what: String) -> Int? {
        let value = trimmed(a.value)
        if let hit = table.first(where: { $0.name.lowercased() == value.lowercased() || String($0.code) == value }) { return hit.code }
        // The JSON spellings that the decoder also reads, so an export from either world loads.
        if what == "type", let type = ActionType(name: value) { return type.rawValue }
        let names = table.map(\.name)
        let hint = Spelling.closest(to: value, in: names).map { "did you mean \"\($0)\"? " } ?? ""
        error(at: a.position, "\(what)=\"\(a.value)\" is not a \(what); \(hint)expected \(names.map { "\"\($0)\"" }.joined(separator: ", "))")
        return nil
    }

    private mutating func boolean(_ a: ParsedAttribute) -> Bool? {
        switch trimmed(a.value) {
        case "true", "1": return true
        case "false", "0": return false
        default:
            error(at: a.position, "\(a.name)=\"\(a.value)\" is not a boolean; expected \"true\" or \"false\"")
            return nil
        }
    }

    /// A JSON number as written (`900`, `-1`, `1.5`).
    private mutating func number(_ a: ParsedAttribute) -> Bool {
        let text = trimmed(a.value)
        if case .number? = try? JSONParser.parse(text) { return true }
        error(at: a.position, "\(a.name)=\"\(a.value)\" is not a number; expected seconds as a number, e.g. \(a.name)=\"900\"")
        return false
    }

    /// An RFC 3339 date; a bare time of day passes (the decoder warns that it is treated as absent).
    private mutating func date(_ a: ParsedAttribute) -> Bool {
        if case .invalid(let reason) = Timestamp.parseRFC3339(a.value) {
            error(at: a.position, "\(a.name)=\"\(a.value)\" is not a date (\(reason)); expected RFC 3339 like 2016-05-10T14:15:00.000+0200 or 2016-05-10T12:15:00Z")
            return false
        }
        return true
    }

    private func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while let f = s.unicodeScalars.first, ParsedElement.isSpace(f) { s = s.dropFirst() }
        while let l = s.unicodeScalars.last, ParsedElement.isSpace(l) { s = s.dropLast() }
        return String(s)
    }

    private mutating func error(at position: TextPosition, _ message: String) {
        problems.append(XMLCampaignError(SourceLocation(file: file, line: position.line, column: position.column), message))
    }

    // MARK: - Positions inside the payload

    /// Moves positions the JSON parser gave relative to the payload text to the XML file.
    static func shift(line: Int, column: Int, to origin: TextPosition) -> TextPosition {
        TextPosition(line: origin.line + line - 1, column: line == 1 ? origin.column + column - 1 : column)
    }

    static func shift(_ value: JSONValue, to origin: TextPosition) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map { e in
                let p = shift(line: e.line, column: e.column, to: origin)
                return JSONElement(value: shift(e.value, to: origin), line: p.line, column: p.column)
            })
        case .object(let members):
            return .object(members.map { m in
                let p = shift(line: m.line, column: m.column, to: origin)
                return JSONMember(key: m.key, value: shift(m.value, to: origin), line: p.line, column: p.column)
            })
        default:
            return value
        }
    }
}

extension JSONElement {
    fileprivate var position: TextPosition { TextPosition(line: line, column: column) }
}
