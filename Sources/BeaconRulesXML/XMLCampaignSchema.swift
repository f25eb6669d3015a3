/// The vocabulary of the XML export form (SPEC section 6): which elements and attributes exist
/// where, so that a misspelling can be answered with the name that was meant.
enum XMLCampaignSchema {
    static let namespace = "urn:beaconrules:campaigns:1"

    /// Children each element may have.
    static let children: [String: [String]] = [
        "campaigns": ["campaign"],
        "campaign": ["beacon", "timeframe", "content", "onEnter", "onExit"],
        "content": ["subject", "body", "url", "payload"],
        "onEnter": ["strings"],
        "onExit": ["strings"],
    ]

    /// Attributes each element may have (`xmlns` declarations are not attributes to libxml2).
    static let attributes: [String: [String]] = [
        "campaigns": [],
        "campaign": ["eid", "name", "trigger", "type", "suppressionTime", "sendOnlyOnce", "delay", "deliverAt", "instant"],
        "beacon": ["uuid", "major", "minor"],
        "timeframe": ["start", "end"],
        "onEnter": ["confirmAction", "actInForeground"],
        "onExit": ["confirmAction", "actInForeground"],
        "strings": ["lang", "title", "message", "okButtonTitle", "cancelButtonTitle"],
        "subject": [], "body": [], "url": [], "payload": [], "content": [],
    ]

    static let triggers: [(name: String, code: Int)] = [("enter", 1), ("exit", 2), ("enterExit", 3)]
    static let types: [(name: String, code: Int)] = [("notification", 1), ("website", 2), ("inApp", 3), ("silent", 4)]

    /// "unknown X "name" on <parent>; did you mean "best"?" with the valid names when none is close.
    static func unknown(_ what: String, _ name: String, in parent: String, valid: [String]) -> String {
        var message = "unknown \(what) \"\(name)\" in <\(parent)>"
        if valid.isEmpty { return message + "; <\(parent)> has no \(what)s" }
        if let best = closest(to: name, in: valid) { message += "; did you mean \"\(best)\"?" }
        return message + " (expected one of: \(valid.joined(separator: ", ")))"
    }

    /// The valid name nearest to `name` by edit distance (ignoring case), when it is near enough
    /// to be a slip of the keyboard rather than a different word.
    static func closest(to name: String, in valid: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in valid {
            let d = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best else { return nil }
        let allowed = max(2, min(target.count, best.name.count) / 3)
        return best.distance <= allowed ? best.name : nil
    }

    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
