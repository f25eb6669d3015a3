/// Every key the campaign formats read, per kind of object, and the other spellings the SPEC and
/// the vendor documents write for some of them: the one place the decoder learns a spelling
/// (`spellings`), and the list `lint` measures unknown keys against (`known`).
///
/// Invariant: an other spelling is never also a canonical key of the same object, so reading a
/// field by its canonical name finds every way it can be written, and no key is read twice.
/// (One other shape is not a key: MCE's Add to Calendar action written flat, its event's keys
/// beside `type`; `CampaignDecoder` reads it where it reads an action's `value`.)
package enum CampaignVocabulary {
    /// The objects of a campaign that have a fixed set of keys.
    package enum Object: Sendable, CaseIterable {
        /// A Sensorberg action (one campaign).
        case action
        /// `content`.
        case content
        /// `onEnter` / `onExit` (besides its language blocks).
        case localizedBlock
        /// One language of a localized block.
        case languageStrings
        /// `notificationAction` or a `categoryActions` entry (MCE's action object).
        case notificationAction
        /// The Add to Calendar event (`value` of a `calendar` action, or the action itself, flat).
        case calendarEvent
        /// `aps` of an action, as MCE payloads write it.
        case aps
    }

    /// Other spellings of canonical keys, with where each comes from.
    package static let spellings: [String: [String]] = [
        // SPEC section 2: the corpus's misspelling.
        "suppressionTime": ["supressionTime"],
        // Acoustic MCE payloads write the extension keys hyphenated.
        "notificationAction": ["notification-action"],
        "categoryActions": ["category-actions"],
        "categoryName": ["category-name"],
        "mediaAttachment": ["media-attachment"],
        // Sensorberg's post names it so in its prose (its JSON example says `confirmAction`).
        "confirmAction": ["confirmationAction"],
        // The button id as `--format apns` (and MCE's SDK) write it.
        "id": ["identifier"],
        // MCE payloads give them inside `aps` (a dotted spelling is a member of a member).
        "sound": ["aps.sound"],
        "badge": ["aps.badge"],
    ]

    /// Other spellings that SPEC section 2 reads only when the canonical key is absent ("the
    /// misspelled `supressionTime` is read when `suppressionTime` is absent"). Where both are given
    /// and disagree, the canonical key is used and the decoder warns: a load error would refuse a
    /// layout the SPEC accepts.
    package static let readOnlyWhenAbsent: Set<String> = ["supressionTime"]

    /// The canonical keys of each object (other spellings are in `spellings`).
    package static func known(_ object: Object) -> [String] {
        switch object {
        case .action:
            ["eid", "name", "trigger", "type", "typeString", "beacons", "timeframes", "suppressionTime", "sendOnlyOnce",
             "delay", "deliverAt", "dwell", "content", "notificationAction", "categoryActions", "categoryName",
             "mediaAttachment", "sound", "badge", "aps", "reportImmediately", "accountProximityUUIDs",
             // The Sensorberg backend's bookkeeping, seen in the corpus: kept, never read.
             "activated", "visibility", "createdTime", "updateTime"]
        case .content: ["subject", "body", "url", "payload"]
        case .localizedBlock: ["confirmAction", "actInForeground"]
        case .languageStrings: ["title", "subtitle", "message", "okButtonTitle", "cancelButtonTitle"]
        case .notificationAction: ["type", "value", "name", "id", "destructive", "authentication", "foreground"]
        case .calendarEvent: ["title", "startDate", "endDate", "timeZone", "interactive", "description", "type"]
        // The alert, category and mutable-content come from the campaign's content and buttons.
        case .aps: ["badge", "sound"]
        }
    }

    /// Every key of `object`, canonical and other spellings.
    package static func accepted(_ object: Object) -> Set<String> {
        var keys = Set(known(object))
        for key in known(object) { keys.formUnion(spellings[key] ?? []) }
        return keys
    }

    /// The ways `canonical` can be written, canonical first.
    package static func spellings(of canonical: String) -> [String] {
        [canonical] + (spellings[canonical] ?? [])
    }
}

/// A field found under one of its spellings, or the two spellings that disagree.
enum SpelledField: Sendable {
    case absent
    case found(JSONMember)
    /// Two spellings are given with different values, in the order the file writes them.
    case conflict(JSONMember, JSONMember)

    /// Looks `canonical` up under every spelling through `lookup`. Two spellings with the same
    /// value are one field.
    init(_ canonical: String, in lookup: (String) -> JSONMember?) {
        var found: JSONMember?
        for spelling in CampaignVocabulary.spellings(of: canonical) {
            guard let m = lookup(spelling) else { continue }
            guard let earlier = found else { found = m; continue }
            if !earlier.value.sameContent(as: m.value) && !Self.sameNumber(earlier.value, m.value) {
                self = earlier.line < m.line || (earlier.line == m.line && earlier.column < m.column) ? .conflict(earlier, m) : .conflict(m, earlier)
                return
            }
        }
        self = found.map { .found($0) } ?? .absent
    }

    private static func sameNumber(_ a: JSONValue, _ b: JSONValue) -> Bool {
        guard let x = a.doubleValue, let y = b.doubleValue else { return false }
        return x == y
    }

    /// The message of a conflict, naming both spellings and their values.
    /// With `reading`, the one that is read in spite of the other (SPEC section 2's rule).
    static func conflictMessage(_ a: JSONMember, _ b: JSONMember, path: String, reading: JSONMember? = nil) -> String {
        let both = "`\(path)\(a.key)` (\(a.value.compactText)) and `\(path)\(b.key)` (\(b.value.compactText)) are two spellings of one field and disagree"
        guard let reading else { return both + "; keep one of them" }
        return both + "; `\(path)\(reading.key)` is read (SPEC section 2), keep one of them"
    }
}
