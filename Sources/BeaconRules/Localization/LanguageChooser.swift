/// Picks the language block and fills in the strings a record shows (SPEC section 2).
public struct LanguageChooser: Sendable {
    /// The `Locales/` tables the strings fall back to.
    public let locales: LocaleTable

    /// A chooser that falls back to `locales`.
    public init(locales: LocaleTable) { self.locales = locales }

    /// The block language for a device tag: the tag, its prefixes, the Locales fallback chain,
    /// `en`, then the first key in sorted order.
    public func choose(in block: LocalizedBlock, deviceTag: String?) -> LanguageStrings? {
        guard !block.languages.isEmpty else { return nil }
        if block.languages.count == 1 { return block.languages[0] }
        for tag in locales.preferenceChain(for: deviceTag) {
            if let hit = block.languages.first(where: { $0.tag == tag }) { return hit }
        }
        return block.languages.min { $0.key < $1.key }
    }

    /// The title of the OK button when the campaign does not give one: the behaviour's own
    /// title (`openButtonTitle` / `shareButtonTitle`), else `okButtonTitle`, per locale in the chain.
    public func defaultConfirmTitle(_ action: ConfirmAction, tag: String?) -> String? {
        let specific = action == .share ? "shareButtonTitle" : "openButtonTitle"
        for candidate in locales.preferenceChain(for: tag) {
            guard let entry = locales.entry(candidate) else { continue }
            if let value = entry.strings[specific] ?? entry.strings["okButtonTitle"] { return value }
        }
        return nil
    }

    /// The Cancel button's title for a language tag, from `Locales/` (`cancelButtonTitle`), falling
    /// back as SPEC section 2 says; nil when no table has one.
    public func defaultCancelTitle(tag: String?) -> String? {
        locales.string("cancelButtonTitle", startingAt: tag)
    }

    /// The language of a record that chose no block language (its button titles are the
    /// defaults for the device tag): the tag the Locales serve it with, else `en`.
    public func defaultLanguage(tag: String?) -> String {
        locales.servingTag(for: tag) ?? "en"
    }
}
