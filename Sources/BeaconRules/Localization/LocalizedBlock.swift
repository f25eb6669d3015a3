/// An `onEnter` or `onExit` block of a campaign payload: button behaviour and per-language strings.
public struct LocalizedBlock: Sendable, Equatable {
    /// What the OK button does (`open` by default).
    public var confirmAction: ConfirmAction
    /// Whether OK opens the app in the foreground (the APNs category's option; true by default).
    public var actInForeground: Bool
    /// Language blocks in the order written.
    public var languages: [LanguageStrings]

    /// A block with these language blocks, in the order the campaign wrote them.
    public init(confirmAction: ConfirmAction = .open, actInForeground: Bool = true, languages: [LanguageStrings]) {
        self.confirmAction = confirmAction
        self.actInForeground = actInForeground
        self.languages = languages
    }
}

/// What the OK button does.
public enum ConfirmAction: String, Sendable, Equatable {
    /// OK opens the campaign's URL (or the app).
    case open
    /// OK shares the campaign's URL (or its title).
    case share
}

/// The strings of one language in a localized block.
public struct LanguageStrings: Sendable, Equatable {
    /// The language key as written (`de`, `pt-BR`): records carry it as `language`.
    public var key: String
    /// The key lower-cased with `_` as `-`, for comparison.
    public var tag: String
    /// The block's strings by key (`title`, `body`, `okButtonTitle`, ...).
    public var strings: [String: String]

    /// A language block as written; `tag` is derived from `key`.
    public init(key: String, strings: [String: String]) {
        self.key = key
        self.tag = LanguageTag.normalize(key)
        self.strings = strings
    }
}

/// Helpers for BCP 47 tags as the engine compares them.
public enum LanguageTag {
    /// Lower-cased, `_` read as `-`, surrounding spaces dropped.
    public static func normalize(_ tag: String) -> String {
        let utf8 = tag.utf8
        if utf8.allSatisfy({ $0 < 0x80 && $0 != 0x20 && $0 != 0x09 }) {
            var bytes = Array(utf8)
            for i in bytes.indices {
                if bytes[i] >= 0x41 && bytes[i] <= 0x5A { bytes[i] |= 0x20 } else if bytes[i] == 0x5F { bytes[i] = 0x2D }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(tag.lowercased().map { $0 == "_" ? "-" : $0 }).trimmingSpaces()
    }

    /// The tag and each shorter prefix: `zh-hant-tw`, `zh-hant`, `zh`.
    public static func prefixes(of tag: String) -> [String] {
        var result: [String] = []
        var current = Substring(tag)
        while !current.isEmpty {
            result.append(String(current))
            guard let dash = current.lastIndex(of: "-") else { break }
            current = current[..<dash]
        }
        return result
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
