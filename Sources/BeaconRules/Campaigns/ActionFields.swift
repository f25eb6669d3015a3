/// The members of an action object that the decoder reads, found in one pass over the object:
/// looking each field up with `JSONValue.member` scanned every member for each of them.
struct ActionFields {
    private static let names = [
        "aps", "eid", "name", "type", "delay", "dwell", "sound", "badge", "trigger", "beacons", "content", "deliverAt",
        "timeframes", "typeString", "sendOnlyOnce", "categoryName", "category-name", "supressionTime", "suppressionTime",
        "categoryActions", "mediaAttachment", "category-actions", "media-attachment", "notificationAction",
        "notification-action",
    ]

    let members: [JSONMember]
    /// Per entry of `names`: the index of the last member with that name (a later duplicate wins,
    /// as with `JSONValue.member`), or -1.
    private var last = InlineArray<25, Int32>(repeating: -1)

    init(_ members: [JSONMember]) {
        self.members = members
        for (i, member) in members.enumerated() {
            if let slot = Self.slot(member.key) { last[slot] = Int32(i) }
        }
    }

    /// The last member named `key`, as `JSONValue.member(key)` finds it.
    func member(_ key: String) -> JSONMember? {
        guard let slot = Self.slot(key) else { return members.last { $0.key == key } }
        let i = Int(last[slot])
        return i < 0 ? nil : members[i]
    }

    /// `key`'s entry in `names`. The length picks the candidates so that a member name is compared
    /// with one or two names, not twenty-five. (Strings equal as Swift compares them have the same
    /// UTF-8 length here: no non-ASCII text is canonically equivalent to one of these names.)
    private static func slot(_ key: String) -> Int? {
        let length = key.utf8.count
        guard length < byLength.count else { return nil }
        for slot in byLength[length] where names[slot] == key { return slot }
        return nil
    }

    /// Per UTF-8 length, the range of `names` that long (`names` is in order of length).
    private static let byLength: [Range<Int>] = {
        var ranges = [Range<Int>](repeating: 0..<0, count: names.map(\.utf8.count).max()! + 1)
        for (i, name) in names.enumerated() {
            let length = name.utf8.count
            precondition(ranges[length].isEmpty || ranges[length].upperBound == i, "ActionFields.names must be in order of length")
            ranges[length] = (ranges[length].isEmpty ? i : ranges[length].lowerBound)..<(i + 1)
        }
        return ranges
    }()
}
