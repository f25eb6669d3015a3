/// A JSON text that does not parse: what was expected, at which line and column (1-based).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
