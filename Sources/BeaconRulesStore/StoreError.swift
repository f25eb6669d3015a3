// Public in a target that is no product: the service re-exports it (a state that does not open
// or commit), and `PostgresLocation(url:)` throws it.
/// A state file that cannot be opened, read or written: which file, which line when there is one,
/// and what went wrong.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The file (or the database's URL, without a password) the error is about.
    public var path: String
    /// The line of the file, when the error is about one.
    public var line: Int?
    /// What went wrong, and what was expected.
    public var message: String
    /// The state file is open in another process (its lock is taken, `StateFileLock`): a
    /// command that must not run beside it says so in its own words (`state drop`).
    package var inUse = false

    /// An error about `path` (at `line`, when there is one) saying `message`.
    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `PATH[:LINE]: MESSAGE`.
    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
}
