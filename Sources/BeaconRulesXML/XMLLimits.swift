/// How much an export may ask of the reader before it is refused.
///
/// Campaign exports are small and shallow (the deepest element is `<strings>` at depth 4), so the
/// defaults are far above any real export and far below what could tire the machine.
package struct XMLLimits: Sendable, Equatable {
    /// Largest file accepted, in bytes; checked before libxml2 sees a byte.
    package var maximumBytes: Int
    /// Deepest element nesting accepted (the root is depth 1); checked while parsing.
    package var maximumDepth: Int

    package init(maximumBytes: Int = 10 << 20, maximumDepth: Int = 32) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
    }

    package static let standard = XMLLimits()
}
