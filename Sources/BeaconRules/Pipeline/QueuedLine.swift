/// A line waiting in a `LinePipeline`'s batch. Plain data (no reference to count as it is
/// copied): what a line holds beyond its kind is in the batch's side lists.
///
/// Not nested in `LinePipeline`: a type nested in a generic class is generic itself, and code
/// that is not specialized for the pipeline's types (a caller in another module) looked its
/// metadata up at run time twice per line.
@usableFromInline
struct QueuedLine {
    @usableFromInline
    enum Kind {
        /// A beacon event, at this index of the batch's `events`.
        case event(Int)
        /// Any other input, at this index of `inputs`.
        case input(Int)
        case outbox(after: Int64)
        /// Not input: answered with the message at this index of `messages`.
        case rejected(Int)
    }
    @usableFromInline var kind: Kind
    /// The line's 1-based number in its source.
    @usableFromInline var line: Int
    /// The line's id names the event (its own, or one made from its content), not its place:
    /// it may be answered from the log and remembered there.
    @usableFromInline var identified: Bool
    /// Where the id the line came with is in `ids`; -1: none (read from `events` if needed).
    @usableFromInline var id: Int

    @inlinable
    init(kind: Kind, line: Int, identified: Bool, id: Int = -1) {
        self.kind = kind
        self.line = line
        self.identified = identified
        self.id = id
    }
}
