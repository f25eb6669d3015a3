/// One element of a parsed export, detached from libxml2: plain values the converter can walk
/// and tests can build by hand.
struct ParsedElement: Sendable, Equatable {
    /// The local name (`campaign`).
    var name: String
    /// The namespace URI, when the element has one.
    var namespace: String?
    var attributes: [ParsedAttribute]
    var children: [ParsedElement]
    /// The element's own text and CDATA, concatenated (child elements' text excluded).
    var text: String
    /// Where the start tag's `<` is.
    var position = TextPosition(line: 0, column: 0)
    /// Where the element's content starts (just after the start tag's `>`).
    var contentPosition = TextPosition(line: 0, column: 0)

    func attribute(_ name: String) -> ParsedAttribute? { attributes.first { $0.name == name } }

    /// True when the text holds something other than white space.
    var hasText: Bool { text.unicodeScalars.contains { !ParsedElement.isSpace($0) } }

    static func isSpace(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" || s == "\n" || s == "\r" }
}

/// An attribute as written, with entity and character references resolved.
struct ParsedAttribute: Sendable, Equatable {
    /// The qualified name as written (`lang`, `xml:lang`).
    var name: String
    var value: String
    /// Where the attribute's name starts.
    var position = TextPosition(line: 0, column: 0)
}

/// A 1-based line and column (columns count characters, not bytes).
struct TextPosition: Sendable, Equatable {
    var line: Int
    var column: Int
}
