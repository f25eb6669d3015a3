import Synchronization

/// The default strings of each language (`Locales/<tag>.json`) and their fallback chains.
public struct LocaleTable: Sendable {
    /// One language's default strings (one `Locales/<tag>.json` file).
    public struct Entry: Sendable, Equatable {
        /// The tag as the file names it (`pt-BR`).
        public var tag: String
        /// The language's default strings by key.
        public var strings: [String: String]
        /// The tags tried next, in order, for a key this language lacks.
        public var fallback: [String]

        /// A language's strings and its fallback tags.
        public init(tag: String, strings: [String: String], fallback: [String] = []) {
            self.tag = tag
            self.strings = strings
            self.fallback = fallback
        }
    }

    /// Keyed by normalized tag.
    public private(set) var entries: [String: Entry] = [:] {
        didSet { chains = ChainMemo() }
    }
    /// `preferenceChain` per device tag, computed once: every record rendered for a device
    /// language walks the chain several times.
    private var chains = ChainMemo()

    private final class ChainMemo: Sendable {
        let known = Mutex<[String?: [String]]>([:])
    }

    /// A table of `entries`; a later entry for the same tag replaces an earlier one.
    public init(entries: [Entry] = []) {
        for entry in entries { add(entry) }
    }

    /// Adds `entry`, replacing any entry of the same (normalized) tag.
    public mutating func add(_ entry: Entry) {
        entries[LanguageTag.normalize(entry.tag)] = entry
    }

    /// The entry of a tag already normalized (`LanguageTag.normalize`), if loaded.
    public func entry(_ normalizedTag: String) -> Entry? { entries[normalizedTag] }

    /// Parses one locale file: string members are strings, `fallback` is a tag or a list of tags.
    public static func parseEntry(tag: String, document: JSONValue, file: String) -> (Entry?, [Diagnostic]) {
        guard let members = document.objectMembers else {
            return (nil, [Diagnostic(.error, SourceLocation(file: file, line: 1), "a locale file must be a JSON object of strings, found \(document.kindName)")])
        }
        var strings: [String: String] = [:]
        var fallback: [String] = []
        var diagnostics: [Diagnostic] = []
        for member in members {
            let at = SourceLocation(file: file, line: member.line, column: member.column)
            if member.key == "fallback" {
                switch member.value {
                case .string(let s): fallback = [s]
                case .array(let elements):
                    for element in elements {
                        if let s = element.value.stringValue { fallback.append(s) } else {
                            diagnostics.append(Diagnostic(.error, at, "`fallback` entries must be language tags (strings), found \(element.value.kindName)"))
                        }
                    }
                case .null: break
                default:
                    diagnostics.append(Diagnostic(.error, at, "`fallback` must be a language tag or a list of them, found \(member.value.kindName)"))
                }
            } else if let s = member.value.stringValue {
                strings[member.key] = s
            } else {
                diagnostics.append(Diagnostic(.error, at, "`\(member.key)` must be a string, found \(member.value.kindName)"))
            }
        }
        return (Entry(tag: tag, strings: strings, fallback: fallback), diagnostics)
    }

    /// The language preference for a device tag: the tag, its prefixes, then the fallback chains
    /// of each of those found here (depth first, each tag once), then `en`.
    public func preferenceChain(for deviceTag: String?) -> [String] {
        if let chain = chains.known.withLock({ $0[deviceTag] }) { return chain }
        let chain = computeChain(for: deviceTag)
        chains.known.withLock { known in
            // Device tags come from clients: past this many, chains are computed each time.
            if known.count < 4096 { known[deviceTag] = chain }
        }
        return chain
    }

    private func computeChain(for deviceTag: String?) -> [String] {
        var chain: [String] = []
        var seen: Set<String> = []
        func visit(_ tag: String) {
            let normalized = LanguageTag.normalize(tag)
            let prefixes = LanguageTag.prefixes(of: normalized).filter { !seen.contains($0) }
            for p in prefixes {
                seen.insert(p)
                chain.append(p)
            }
            for p in prefixes {
                for f in entries[p]?.fallback ?? [] { visit(f) }
            }
        }
        if let deviceTag, !deviceTag.isEmpty { visit(deviceTag) }
        if !seen.contains("en") { visit("en") }
        return chain
    }

    /// The first value of `key` along the chain of locale files starting at `tag`
    /// (its prefixes and fallbacks), then `en`.
    public func string(_ key: String, startingAt tag: String?) -> String? {
        for candidate in preferenceChain(for: tag) {
            if let value = entries[candidate]?.strings[key] { return value }
        }
        return nil
    }

    /// The locale file tag (as written) whose strings serve `tag`: the first in its chain that exists.
    public func servingTag(for tag: String?) -> String? {
        for candidate in preferenceChain(for: tag) {
            if let entry = entries[candidate] { return entry.tag }
        }
        return nil
    }

    /// Fallback cycles (`a -> b -> a`), each reported once as the list of tags.
    public func fallbackCycles() -> [[String]] {
        var cycles: [[String]] = []
        var reported: Set<String> = []
        for start in entries.keys.sorted() {
            var path: [String] = []
            func walk(_ tag: String) {
                if let i = path.firstIndex(of: tag) {
                    let cycle = Array(path[i...])
                    let key = cycle.sorted().joined(separator: ",")
                    if !reported.contains(key) { reported.insert(key); cycles.append(cycle + [tag]) }
                    return
                }
                guard let entry = entries[tag] else { return }
                path.append(tag)
                for f in entry.fallback { walk(LanguageTag.normalize(f)) }
                path.removeLast()
            }
            walk(start)
        }
        return cycles
    }
}
