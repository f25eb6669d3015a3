/// Device locales numbered by first sight (slot 0: no locale): what the tail cache and the
/// ledger key a record's language by, so a record looks up no string.
///
/// Invariant: a locale keeps its slot for the life of the slots; at most `limit` locales are
/// numbered (then `slot` answers nil and tails are rendered per record); `recent` holds only
/// locales already in `slots`, each with its slot there.
struct LocaleSlots: Sendable {
    /// Distinct device locales numbered at most.
    static var limit: Int { 1024 }
    private var slots: [String: UInt32] = [:]
    /// The first few locales seen that are at most 7 bytes long (`shortTag`), with their slots,
    /// looked up before `slots`.
    private var recent: [(UInt64, UInt32)] = []

    /// The slot of the locale whose tag is `bytes` (nil: no locale, slot 0), numbering it on first
    /// sight; nil past `limit`.
    mutating func slot(_ bytes: UnsafeBufferPointer<UInt8>?) -> UInt32? {
        guard let bytes else { return 0 }
        // A handful of locales make up nearly every stream, and their tags are short: one
        // compare of the tag's bytes as a word is cheaper than hashing it.
        let word = Self.shortTag(bytes)
        if word != 0 { for (known, slot) in recent where known == word { return slot } }
        let locale = InPlaceEvent.text(bytes)
        if let slot = slots[locale] {
            if word != 0 && recent.count < 8 { recent.append((word, slot)) }
            return slot
        }
        guard slots.count < Self.limit else { return nil }
        let slot = UInt32(slots.count + 1)
        slots[locale] = slot
        return slot
    }

    /// A tag of at most 7 bytes as one word (its bytes, then its length in the top byte); 0 for
    /// a longer one.
    @inline(__always)
    static func shortTag(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard bytes.count < 8 else { return 0 }
        var word = UInt64(bytes.count) << 56
        for i in 0..<bytes.count { word |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        return word
    }
}
