/// How an input line is read, whoever reads it: `replay` from its files, `serve` and `http` from
/// their connections, `RulesService` from its callers. One place decides what a line is (input,
/// an outbox request, blank, or refused with the message every driver gives), and what a line
/// without its own `id` is known by.
///
/// A line read as input is `identified` when its id names the event (its own `id`, or the one
/// `EventIdentity` makes from what it says): the pipeline then answers it from the answer log
/// when it was seen before, and remembers its answer. A line known by its place in a source is
/// not identified. That one bit is what `LinePipeline.append(_:line:identified:)` takes.
public struct LineIntake: Sendable, Hashable {
    /// What a line without its own `id` is known by.
    public enum LinesWithoutID: Sendable, Hashable {
        /// `SOURCE:LINE`, its place in the intake's `source`: not identified, so its answer is not
        /// remembered (`replay`, and `RulesService` by default).
        case knownByPlace
        /// The id made from what the line says (`EventIdentity`): identified, so a line sent again
        /// is answered as before (`serve`, `http`: a connection's line numbers start again after
        /// a reconnect).
        case identifiedByContent
    }

    /// Where the lines come from (a file name, `stdin`): a line known by its place is
    /// `SOURCE:LINE`.
    public var source: String
    /// What a line without its own `id` is known by.
    public var linesWithoutID: LinesWithoutID
    /// A blank line is skipped (`replay`); else it is refused with `blankLineMessage`, as a
    /// driver that answers every line does.
    public var skipsBlankLines: Bool
    /// `{"type":"outbox","after":N}` is read as an outbox request (SPEC section 5, `serve`); else
    /// it is refused as a line that is not input.
    public var readsOutboxRequests: Bool

    /// An intake of these rules.
    public init(source: String, linesWithoutID: LinesWithoutID, skipsBlankLines: Bool = false, readsOutboxRequests: Bool = false) {
        self.source = source
        self.linesWithoutID = linesWithoutID
        self.skipsBlankLines = skipsBlankLines
        self.readsOutboxRequests = readsOutboxRequests
    }

    /// `replay`'s: a line without an id is `SOURCE:LINE`; blank lines are skipped.
    public static func replay(source: String) -> LineIntake {
        LineIntake(source: source, linesWithoutID: .knownByPlace, skipsBlankLines: true)
    }

    /// A connection's (`serve`; `http` without outbox requests): a line without an id is known
    /// by its content; every line is answered.
    public static func connection(readsOutboxRequests: Bool) -> LineIntake {
        LineIntake(source: "connection", linesWithoutID: .identifiedByContent, readsOutboxRequests: readsOutboxRequests)
    }

    /// What every driver answers for a blank line it does not skip.
    public static let blankLineMessage = "blank line; expected one JSON event object"

    /// What every driver answers for a line longer than it reads (`limit` bytes).
    public static func tooLongMessage(limit: Int) -> String {
        "line longer than \(limit) bytes; skipped up to its newline"
    }

    /// Reads line `number` (1-based).
    public func read(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> ReadLine {
        read(line, number: number) { line, fallbackID throws(EventError) in
            try EventParser.parseInput(line: line, fallbackID: fallbackID())
        }
    }

    /// Reads line `number` that the usual-layout reader has already turned down
    /// (`LinePipeline.appendUsualLayout`): the same outcome as `read`, without trying that layout
    /// again.
    public func readInGeneral(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> ReadLine {
        read(line, number: number) { line, fallbackID throws(EventError) in
            try EventParser.parseInputInGeneral(line: line, fallbackID: fallbackID())
        }
    }

    /// Reads line `number` of a `String`.
    public func read(_ line: String, number: Int) -> ReadLine {
        var text = line
        return text.withUTF8 { read($0, number: number) }
    }

    /// `read` with the line's parser given (`LineApps.read`: one that also meets the line's app).
    func read(
        _ line: UnsafeBufferPointer<UInt8>, number: Int,
        parse: (UnsafeBufferPointer<UInt8>, () -> String) throws(EventError) -> InputLine
    ) -> ReadLine {
        if EventParser.isBlank(line) { return skipsBlankLines ? .blank : .rejected(message: Self.blankLineMessage) }
        var ownID = true
        do throws(EventError) {
            switch linesWithoutID {
            case .knownByPlace:
                let input = try parse(line) {
                    ownID = false
                    return "\(source):\(number)"
                }
                return .input(input, identified: ownID)
            case .identifiedByContent:
                let input = try parse(line) {
                    ownID = false
                    return ""
                }
                return .input(ownID ? input : EventIdentity.identified(input), identified: true)
            }
        } catch {
            // Only a line that is not input pays for this second look.
            if readsOutboxRequests, let after = Self.outboxRequest(line) { return .outbox(after: after) }
            return .rejected(message: error.description)
        }
    }

    /// `{"type":"outbox","after":N}` (N >= 0, default 0), or nil.
    static func outboxRequest(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let value = try? JSONParser.parse(bytes), value["type"]?.stringValue == "outbox" else { return nil }
        let after = value["after"]?.integerValue ?? 0
        return after >= 0 ? after : nil
    }
}

/// One line as a `LineIntake` read it.
public enum ReadLine: Sendable {
    /// Input (an event, a response, a sighting). `identified`: its id names the event (its own, or
    /// the one made from its content), not its place in a source.
    case input(InputLine, identified: Bool)
    /// `{"type":"outbox","after":N}`: the records that fired on the clock after sequence number N.
    case outbox(after: Int64)
    /// Not input: answered with `message` (where and what was expected), it changes nothing.
    case rejected(message: String)
    /// A blank line the intake skips.
    case blank
}

extension LinePipeline {
    /// Queues a line as read, in its place among the batch's lines (a blank line is not queued).
    public func append(_ read: ReadLine, line: Int) {
        switch read {
        case .input(let input, let identified): append(input, line: line, identified: identified)
        case .outbox(let after): appendOutboxRequest(after: after, line: line)
        case .rejected(let message): appendRejected(message, line: line)
        case .blank: break
        }
    }

    /// Queues line `line` of a source: in the usual layout straight into the batch (no `String`
    /// per field), any other line as `intake` reads it.
    @inlinable
    public func append(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, reading intake: LineIntake) {
        if !appendUsualLayout(bytes, line: line) { append(intake.readInGeneral(bytes, number: line), line: line) }
    }
}
