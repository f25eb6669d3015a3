import BeaconRules

/// A JSON object that is not a SPEC section 3 record: which member, and what was expected there.
public struct RecordJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where (the member, `category.actions[1].title`, or the JSON's line and column) and what
    /// was expected.
    public var message: String

    /// An error with this message.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
