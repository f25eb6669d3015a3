/// A problem found while loading or checking campaigns and locales.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// An error stops the file (or the campaign) from loading; a warning does not.
    public enum Severity: String, Sendable {
        /// The file (or the campaign) does not load.
        case error
        /// It loads; the warning says what may not do what was meant.
        case warning
    }

    /// Whether the problem stops loading.
    public var severity: Severity
    /// The file and line the problem is at.
    public var location: SourceLocation
    /// What is wrong and what was expected.
    public var message: String

    /// A problem of `severity` at `location`.
    public init(_ severity: Severity, _ location: SourceLocation, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// Compiler style: `PATH:LINE: error: message`.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// Campaigns or locales that do not load: every error found, in file order.
public struct CampaignLoadError: Error, Sendable, CustomStringConvertible {
    /// Every problem found, errors and warnings, in file order.
    public var diagnostics: [Diagnostic]

    /// An error that reports these problems.
    public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// The errors, one per line, as `beaconrules` prints them (warnings left out).
    public var description: String {
        diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")
    }
}
