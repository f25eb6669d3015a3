package import BeaconRules

/// Checks a `Locales/` table: every language should give every default string (itself or through
/// its fallbacks) and no fallback chain may loop.
package struct LocaleLinter: Sendable {
    /// The strings the engine takes from Locales files; `en.json` must give them all, being the
    /// last resort of every chain.
    package static let requiredKeys = ["okButtonTitle", "openButtonTitle", "shareButtonTitle", "cancelButtonTitle"]

    package var locales: LocaleTable
    /// The file a tag was read from, for the diagnostics' location.
    package var file: @Sendable (_ tag: String) -> String

    package init(locales: LocaleTable, file: @escaping @Sendable (_ tag: String) -> String) {
        self.locales = locales
        self.file = file
    }

    package func lint() -> [Diagnostic] {
        var findings: [Diagnostic] = []
        let entries = locales.entries.values.sorted { $0.tag < $1.tag }
        func at(_ tag: String) -> SourceLocation { SourceLocation(file: file(tag), line: 1) }
        if locales.entry("en") == nil {
            findings.append(Diagnostic(.error, SourceLocation(file: file("en"), line: 0), "there is no en.json: it is the last fallback of every language; add it with \(Self.requiredKeys.joined(separator: ", "))"))
        }
        let known = Set(Self.requiredKeys + ["okButtonTitle"])
        for entry in entries {
            let normalized = LanguageTag.normalize(entry.tag)
            for key in entry.strings.keys.sorted() where !known.contains(key) {
                let hint = Spelling.closest(to: key, in: Self.requiredKeys).map { "; did you mean \"\($0)\"?" } ?? ""
                findings.append(Diagnostic(.warning, at(entry.tag), "unknown key \"\(key)\"\(hint) (the engine reads \(Self.requiredKeys.joined(separator: ", ")) and fallback)"))
            }
            for fallback in entry.fallback where locales.entry(LanguageTag.normalize(fallback)) == nil {
                findings.append(Diagnostic(.warning, at(entry.tag), "fallback \"\(fallback)\" has no Locales file; add \(fallback).json or remove it from the fallback list"))
            }
            // What the language really shows: found along its own chain before English takes over.
            let chain = locales.preferenceChain(for: entry.tag)
            let own = normalized == "en" || normalized.hasPrefix("en-") ? chain : Array(chain.prefix { $0 != "en" })
            let missing = Self.requiredKeys.filter { key in !own.contains { locales.entry($0)?.strings[key] != nil } }
            guard !missing.isEmpty else { continue }
            if normalized == "en" {
                findings.append(Diagnostic(.error, at(entry.tag), "en.json lacks \(missing.joined(separator: ", ")): English is the last fallback of every language, so those buttons would have no title; add them"))
            } else {
                findings.append(Diagnostic(.warning, at(entry.tag), "missing \(missing.joined(separator: ", ")) (not in the file nor in its fallbacks): English is shown instead; add them or a fallback that has them"))
            }
        }
        for cycle in locales.fallbackCycles() {
            let first = locales.entry(cycle[0])?.tag ?? cycle[0]
            findings.append(Diagnostic(.error, at(first), "fallback cycle \(cycle.joined(separator: " -> ")): a language can not fall back to itself; break the cycle"))
        }
        return findings
    }
}
