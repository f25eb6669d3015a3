/// A JSON text that does not parse: what was expected, at which line and column (1-based).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was expected there, and what was found.
    public var message: String
    /// The line of the text the problem is on (1-based).
    public var line: Int
    /// The column, in UTF-8 bytes from the line's start (1-based).
    public var column: Int

    /// A syntax error at a place of the text.
    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// `line L, column C: message`, as error messages quote it.
    public var description: String { "line \(line), column \(column): \(message)" }
}
