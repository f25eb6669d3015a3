/// A state file that cannot be opened, read or written: which file, which line when there is one,
/// and what went wrong.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String

    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
}
