import BeaconRules
@testable import BeaconRulesXML
import CampaignFiles
import Foundation
import Testing

/// Hostile exports are refused before they can cost anything, with a clear error at file:line:column,
/// and nothing of an entity reaches any output.
@Suite struct XMLSecurityTests {
    @Test func externalEntityIsRefusedAtTheDoctypeWithFileLineAndColumn() throws {
        let path = Paths.fixture("xml/xxe-external-entity.xml")
        let catalog = XMLSupport.reader.load(paths: [path])
        #expect(catalog.campaigns.isEmpty)
        let error = try #require(catalog.errors.first)
        #expect(catalog.errors.count == 1)
        #expect(error.location == SourceLocation(file: path, line: 2, column: 1))
        #expect(error.message.contains("DOCTYPE is not allowed"))
    }

    @Test func externalEntityNeverReachesTheOutputOfTheRealBinary() throws {
        let result = try CommandRunner.run(["replay", "--campaigns", Paths.fixture("xml/xxe-external-entity.xml")], stdin: "")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("xxe-external-entity.xml:2:1: error: a DOCTYPE is not allowed"))
        #expect(!result.stderr.contains("root:"), "the content of /etc/passwd must never be read")
    }

    @Test func billionLaughsIsRefusedBeforeAnyExpansion() throws {
        let path = Paths.fixture("xml/billion-laughs.xml")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let (campaigns, diagnostics) = XMLCampaignReader.read(path: path, bytes: bytes)
        #expect(campaigns.isEmpty)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.location == SourceLocation(file: path, line: 2, column: 1))
        #expect(diagnostics.first?.message.contains("entity expansion") == true)
        #expect(diagnostics.first?.message.contains("lollol") == false)
    }

    @Test func aDoctypePointingAtTheNetworkIsRefusedToo() {
        let path = Paths.fixture("xml/external-dtd.xml")
        let catalog = XMLSupport.reader.load(paths: [path])
        #expect(catalog.errors.map(\.location) == [SourceLocation(file: path, line: 3, column: 1)])
    }

    @Test func anUndeclaredEntityIsNotWellFormed() {
        let errors = XMLSupport.errors(XMLSupport.export("<campaign eid=\"&nope;\" type=\"silent\"/>"))
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("not well-formed XML: Entity 'nope' not defined") == true)
        #expect(errors.first?.location.line == 2)
    }

    @Test func deepNestingIsRefusedByTheDepthLimit() {
        let depth = 100_000
        let xml = "<campaigns xmlns=\"urn:beaconrules:campaigns:1\">" + String(repeating: "<campaign>", count: depth)
            + String(repeating: "</campaign>", count: depth) + "</campaigns>"
        let errors = XMLSupport.errors(xml)
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("nested 33 deep") == true)
        #expect(errors.first?.message.contains("at most 32 deep") == true)
        // The 33rd start tag: 47 characters of root tag, then 31 times 10.
        #expect(errors.first?.location == SourceLocation(file: "inline.xml", line: 1, column: 48 + 31 * 10))
    }

    @Test func depthLimitIsConfigurable() {
        let xml = XMLSupport.export("<campaign eid=\"a\" type=\"silent\"><content><payload>1</payload></content></campaign>")
        #expect(XMLSupport.read(xml, limits: XMLLimits(maximumDepth: 3)).diagnostics.first?.message.contains("nested 4 deep at <payload>") == true)
        #expect(XMLSupport.read(xml, limits: XMLLimits(maximumDepth: 4)).diagnostics.isEmpty)
    }

    @Test func aFiftyMegabyteFileIsRefusedByTheSizeLimit() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/huge.xml"
        var text = XMLSupport.export("")
        let filler = "<!-- " + String(repeating: "x", count: 1 << 20) + " -->\n"
        while text.utf8.count < 50 << 20 { text += filler }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let result = try CommandRunner.run(["replay", "--campaigns", path], stdin: "")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("huge.xml:1:1: error: the file is \(text.utf8.count) bytes; a campaign export may be at most 10485760 bytes (10 MiB)"))
    }

    @Test func sizeLimitIsCheckedOnBytesBeforeParsing() {
        let (_, diagnostics) = XMLSupport.read("<not even xml", limits: XMLLimits(maximumBytes: 5))
        #expect(diagnostics.first?.message.contains("may be at most 5 bytes") == true)
    }

    @Test func libxml2ErrorTextIsCapturedAndNeverPrintedByTheLibrary() throws {
        let path = Paths.fixture("xml/not-well-formed.xml")
        let (_, problems) = XMLCampaignReader.convert(path: path, bytes: Array(Paths.read(path).utf8))
        #expect(problems.count == 1)
        #expect(problems.first?.libxml2Message == "Opening and ending tag mismatch: campaign line 3 and campaing")
        #expect(problems.first?.location == SourceLocation(file: path, line: 4, column: 14))

        let result = try CommandRunner.run(["replay", "--campaigns", path], stdin: "")
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines == ["beaconrules: \(path):4:14: error: not well-formed XML: Opening and ending tag mismatch: campaign line 3 and campaing"])
    }

    /// libxml2's option bits (parser.h): NOENT 1<<1, DTDLOAD 1<<2, DTDATTR 1<<3, DTDVALID 1<<4,
    /// XINCLUDE 1<<10, NONET 1<<11, HUGE 1<<19.
    @Test func parserOptionsNeverAskForEntitiesDTDsOrTheNetwork() {
        let options = LibXML2Parser.options
        for forbidden: Int32 in [1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 10, 1 << 19] { #expect(options & forbidden == 0) }
        #expect(options & (1 << 11) != 0)
    }

    @Test func utf16IsRefusedWithAHint() {
        let (_, diagnostics) = XMLCampaignReader.read(path: "u.xml", bytes: [0xFF, 0xFE, 0x3C, 0x00])
        #expect(diagnostics.first?.message.contains("save the export as UTF-8") == true)
    }
}
