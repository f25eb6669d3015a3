public import BeaconRules

/// A problem in an XML campaign export: where it is (file, line, column), what was wrong and what
/// was expected, and, when libxml2 found it, libxml2's own words.
public struct XMLCampaignError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    /// libxml2's text for a document that is not well-formed, kept verbatim (without its newline).
    public var libxml2Message: String?
    /// Problems that still let the campaign load are warnings.
    public var severity: Diagnostic.Severity

    public init(_ location: SourceLocation, _ message: String, libxml2Message: String? = nil, severity: Diagnostic.Severity = .error) {
        self.location = location
        self.message = message
        self.libxml2Message = libxml2Message
        self.severity = severity
    }

    /// The same problem as the engine's diagnostic, so it prints and sorts with all the others.
    public var diagnostic: Diagnostic { Diagnostic(severity, location, message) }

    /// Compiler style: `PATH:LINE:COLUMN: error: message`.
    public var description: String { diagnostic.description }
}
