package import BeaconRules

/// A problem in an XML campaign export: where it is (file, line, column), what was wrong and what
/// was expected, and, when libxml2 found it, libxml2's own words.
package struct XMLCampaignError: Error, Sendable, Equatable, CustomStringConvertible {
    package var location: SourceLocation
    package var message: String
    /// libxml2's text for a document that is not well-formed, kept verbatim (without its newline).
    package var libxml2Message: String?
    /// Problems that still let the campaign load are warnings.
    package var severity: Diagnostic.Severity

    package init(_ location: SourceLocation, _ message: String, libxml2Message: String? = nil, severity: Diagnostic.Severity = .error) {
        self.location = location
        self.message = message
        self.libxml2Message = libxml2Message
        self.severity = severity
    }

    /// The same problem as the engine's diagnostic, so it prints and sorts with all the others.
    package var diagnostic: Diagnostic { Diagnostic(severity, location, message) }

    /// Compiler style: `PATH:LINE:COLUMN: error: message`.
    package var description: String { diagnostic.description }
}
