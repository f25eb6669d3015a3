@testable import BeaconRules
@testable import CampaignLint
import Foundation
import Testing

/// `beaconrules lint`: each check, its severity and where it points.
@Suite struct LintTests {
    static let now = Timestamp.at("2026-06-01T00:00:00Z")

    static func lint(_ json: String) throws -> [Diagnostic] {
        CampaignLinter(now: now, locales: Harness.locales).lint(try Harness.campaigns(json))
    }

    static func action(_ fields: String, beacons: String = #"["b9407f30f5f8466eaff925556b57fe6d0010000001"]"#) -> String {
        #"{"eid": "c1", "type": 1, "trigger": 1, "beacons": \#(beacons), "content": {"subject": "S", "body": "B"}\#(fields.isEmpty ? "" : ", " + fields)}"#
    }

    struct Check: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var severity: Diagnostic.Severity
        var message: String
        var testDescription: String { name }
    }

    static let checks: [Check] = [
        Check(name: "duplicate eids", json: "[\(action("")), \(action("").replacingOccurrences(of: "\"c1\"", with: "\"C-1\""))]", severity: .warning,
              message: "duplicate eid \"C-1\" (also at inline.json:1)"),
        Check(name: "no beacons", json: action("", beacons: "[]"), severity: .warning, message: "lists no beacons"),
        Check(name: "only geofences", json: action("", beacons: #"["u33dc0cg3r6gdx"]"#), severity: .warning, message: "only geofence ids"),
        Check(name: "trigger 3 with only onEnter", json: action("").replacingOccurrences(of: #""trigger": 1"#, with: #""trigger": 3"#).replacingOccurrences(of: #"{"subject": "S", "body": "B"}"#, with: #"{"subject": "S", "payload": {"onEnter": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}"#),
              severity: .warning, message: "trigger enterExit fires on exit, but only onEnter has localized strings"),
        Check(name: "trigger 3 with only onEnter and no subject", json: #"{"eid": "c1", "type": 1, "trigger": 3, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"payload": {"onEnter": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}}"#,
              severity: .error, message: "exit notifications would be empty"),
        Check(name: "block the trigger never serves", json: #"{"eid": "c1", "type": 1, "trigger": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"subject": "S", "body": "B", "payload": {"onEnter": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}, "onExit": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}}"#,
              severity: .warning, message: "onExit is never used: trigger enter never fires on exit"),
        Check(name: "language in onEnter but not in onExit", json: #"{"eid": "c1", "type": 1, "trigger": 3, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"subject": "S", "body": "B", "payload": {"onEnter": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}, "fr": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}, "onExit": {"en": {"title": "t", "message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}}"#,
              severity: .warning, message: "language \"fr\" has onEnter strings but none in onExit"),
        Check(name: "block language without title", json: #"{"eid": "c1", "type": 1, "trigger": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"payload": {"onEnter": {"en": {"message": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}}"#,
              severity: .error, message: "onEnter language \"en\" has no title, and content has no subject"),
        Check(name: "block language without message but a body", json: #"{"eid": "c1", "type": 1, "trigger": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"body": "B", "payload": {"onEnter": {"en": {"title": "t", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}}}"#,
              severity: .warning, message: "onEnter language \"en\" has no message: content.body \"B\" is shown instead"),
        Check(name: "block language without button titles", json: #"{"eid": "c1", "type": 1, "trigger": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"payload": {"onEnter": {"confirmAction": "share", "de": {"title": "t", "message": "m"}}}}}"#,
              severity: .warning, message: "onEnter language \"de\" has no okButtonTitle or cancelButtonTitle: the Locales defaults \"Teilen\" and \"Abbrechen\" are shown"),
        Check(name: "timeframe ending before it starts", json: action(#""timeframes": [{"start": "2026-07-01T10:00:00Z", "end": "2026-07-01T09:00:00Z"}]"#), severity: .error,
              message: "timeframe 1 ends (2026-07-01T09:00:00Z) before it starts (2026-07-01T10:00:00Z): it is never live"),
        Check(name: "timeframe ending when it starts", json: action(#""timeframes": [{"start": "2026-07-01T10:00:00Z", "end": "2026-07-01T10:00:00Z"}]"#), severity: .error,
              message: "ends (2026-07-01T10:00:00Z) when it starts"),
        Check(name: "timeframes all in the past", json: action(#""timeframes": [{"start": "2016-05-10T10:00:00Z", "end": "2016-05-10T12:00:00Z"}, {"end": "2026-05-31T00:00:00Z"}]"#), severity: .warning,
              message: "every timeframe ended by 2026-06-01T00:00:00Z (the last at 2026-05-31T00:00:00Z): the campaign never fires again"),
        Check(name: "deliverAt before every timeframe", json: action(#""deliverAt": "2026-07-01T08:00:00Z", "timeframes": [{"start": "2026-07-01T09:00:00Z", "end": "2026-07-01T17:00:00Z"}]"#), severity: .error,
              message: "deliverAt 2026-07-01T08:00:00Z is before every timeframe (the first opens 2026-07-01T09:00:00Z)"),
        Check(name: "deliverAt with delay", json: action(#""deliverAt": "2026-07-01T08:00:00Z", "delay": 60"#), severity: .warning, message: "deliverAt is ignored because delay is set"),
        Check(name: "suppressionTime with sendOnlyOnce", json: action(#""suppressionTime": 900, "sendOnlyOnce": true"#), severity: .warning,
              message: "suppressionTime (900 s) and sendOnlyOnce are both set: sendOnlyOnce wins, the campaign fires at most once per device, ever"),
        Check(name: "misspelled supressionTime with sendOnlyOnce", json: action(#""supressionTime": 60, "sendOnlyOnce": true"#), severity: .warning, message: "sendOnlyOnce wins"),
        Check(name: "URL without scheme", json: action("").replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "www.example.com""#), severity: .error,
              message: "url \"www.example.com\" does not parse: it has no scheme"),
        Check(name: "javascript URL", json: action("").replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "JavaScript:alert(1)""#), severity: .error,
              message: "javascript: URLs are not allowed"),
        Check(name: "data URL", json: action("").replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "data:text/html,<b>x</b>""#), severity: .error, message: "data: URLs are not allowed"),
        Check(name: "file URL", json: action("").replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "file:///etc/hosts""#), severity: .error, message: "file: URLs are not allowed"),
        Check(name: "http on a website campaign", json: action("").replacingOccurrences(of: #""type": 1"#, with: #""type": 2"#).replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "http://example.com""#),
              severity: .warning, message: "website campaign with an http URL"),
    ]

    @Test(arguments: checks)
    func checkFindsItsMistake(_ check: Check) throws {
        let findings = try Self.lint(check.json)
        try #require(findings.count == 1, "\(findings)")
        #expect(findings[0].severity == check.severity)
        #expect(findings[0].message.contains(check.message), "\(findings[0].message)")
        #expect(findings[0].message.hasPrefix("campaign \""))
    }

    @Test func aCleanCampaignHasNoFindings() throws {
        #expect(try Self.lint(Self.action(#""timeframes": [{"start": "2026-06-01T09:00:00Z", "end": "2026-07-01T17:00:00Z"}]"#)).isEmpty)
    }

    @Test func httpOnANotificationCampaignIsFine() throws {
        #expect(try Self.lint(Self.action("").replacingOccurrences(of: #""body": "B""#, with: #""body": "B", "url": "http://example.com""#)).isEmpty)
    }

    @Test func findingsPointAtTheFieldTheyAreAbout() throws {
        let json = "{\n  \"eid\": \"c1\", \"type\": 1, \"beacons\": [\"b9407f30f5f8466eaff925556b57fe6d0010000001\"],\n  \"content\": {\"subject\": \"S\",\n    \"url\": \"file:///x\"}}"
        let findings = try Self.lint(json)
        #expect(findings.map(\.location) == [SourceLocation(file: "inline.json", line: 4, column: 5)])
    }

    @Test(arguments: [
        ("https://museum.example/today?x=1#top", nil),
        ("museum://audio/room-2", nil),
        ("http://[::1]:8080/path", nil),
        ("https://example.com/a%20b", nil),
        ("https:///nohost", "it has no host"),
        ("https//example.com", "it has no scheme"),
        ("https://example.com/a b", "character 22 is a space"),
        ("https://example.com/%zz", "bad percent escape"),
        ("https://exämple.com", "is not ASCII"),
        ("https://example.com:80a/", "the port \"80a\" is not a number"),
        ("mailto:a@b.c", nil),
    ] as [(String, String?)])
    func urlCheck(url: String, problem: String?) {
        switch URLCheck.check(url) {
        case .valid: #expect(problem == nil)
        case .invalid(let why): #expect(problem.map { why.contains($0) } == true, "\(why)")
        case .forbidden: Issue.record("\(url) is not a forbidden scheme")
        }
    }

    @Test func localeFilesWithMissingKeysAndCyclesAreReported() {
        let table = LocaleTable(entries: [
            .init(tag: "en", strings: ["okButtonTitle": "OK", "openButtonTitle": "Open", "shareButtonTitle": "Share", "cancelButtonTitle": "Cancel"]),
            .init(tag: "a", strings: ["okButtonTitle": "OK"], fallback: ["b"]),
            .init(tag: "b", strings: [:], fallback: ["a"]),
            .init(tag: "pt-BR", strings: ["okButtonTitel": "OK"], fallback: ["pt"]),
            .init(tag: "pt", strings: ["okButtonTitle": "OK", "openButtonTitle": "Abrir", "shareButtonTitle": "Compartilhar", "cancelButtonTitle": "Cancelar"]),
        ])
        let findings = LocaleLinter(locales: table, file: { "L/\($0).json" }).lint().map(\.description)
        #expect(findings == [
            "L/a.json:1: warning: missing openButtonTitle, shareButtonTitle, cancelButtonTitle (not in the file nor in its fallbacks): English is shown instead; add them or a fallback that has them",
            "L/b.json:1: warning: missing openButtonTitle, shareButtonTitle, cancelButtonTitle (not in the file nor in its fallbacks): English is shown instead; add them or a fallback that has them",
            "L/pt-BR.json:1: warning: unknown key \"okButtonTitel\"; did you mean \"okButtonTitle\"? (the engine reads okButtonTitle, openButtonTitle, shareButtonTitle, cancelButtonTitle and fallback)",
            "L/a.json:1: error: fallback cycle a -> b -> a: a language can not fall back to itself; break the cycle",
        ])
    }

    @Test func englishMustGiveEveryKey() {
        let table = LocaleTable(entries: [.init(tag: "en", strings: ["okButtonTitle": "OK"])])
        let findings = LocaleLinter(locales: table, file: { "L/\($0).json" }).lint()
        #expect(findings.map(\.severity) == [.error])
        #expect(findings.first?.message.contains("en.json lacks openButtonTitle, shareButtonTitle, cancelButtonTitle") == true)
    }

    // MARK: - The real binary

    @Test func shippedCampaignsAndLocalesLintWithoutErrors() throws {
        let result = try CommandRunner.run(["lint"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(!result.stdout.contains(": error: "))
        #expect(result.stderr.hasPrefix("lint: 0 errors, "))
    }

    @Test func xmlTwinOfTheShippedSetLintsLikeTheJSON() throws {
        let json = try CommandRunner.run(["lint", "--now", "2026-06-05"])
        let xml = try CommandRunner.run(["lint", "--campaigns", Paths.fixture("xml/museum"), "--now", "2026-06-05"])
        #expect(xml.status == 0)
        func messages(_ out: String) -> [Substring] { out.split(separator: "\n").map { $0[$0.range(of: ": warning: ")!.upperBound...] } }
        #expect(messages(xml.stdout) == messages(json.stdout))
    }

    @Test func lintPrintsCompilerStyleDiagnosticsAndExitsOneOnErrors() throws {
        let path = "Tests/Fixtures/xml/lint/problems.xml"
        let result = try CommandRunner.run(["lint", "--campaigns", path, "--locales", "Tests/Fixtures/xml/lint/Locales-broken", "--now", "2026-06-01"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(line.wholeMatch(of: /[^:]+:\d+(:\d+)?: (error|warning): .+/) != nil, "\(line)")
        }
        let expected = [
            "\(path):4:29: error: campaign \"both-ways\": trigger enterExit fires on exit, but only onEnter has localized strings and content has no subject or body",
            "\(path):4:64: warning: campaign \"both-ways\": suppressionTime (600 s) and sendOnlyOnce are both set: sendOnlyOnce wins",
            "\(path):6:5: error: campaign \"both-ways\": timeframe 1 ends (2026-06-05T09:00:00Z) before it starts (2026-06-05T18:00:00Z)",
            "\(path):7:19: warning: campaign \"both-ways\": website campaign with an http URL",
            "\(path):13:62: error: campaign \"script\": deliverAt 2026-06-01T08:00:00Z is before every timeframe",
            "\(path):16:43: error: campaign \"script\": javascript: URLs are not allowed",
            "\(path):18:13: warning: campaign \"SCRIPT\": duplicate eid \"SCRIPT\" (also at \(path):13)",
            "\(path):20:44: error: campaign \"SCRIPT\": url \"https://museum.example/a page\" does not parse: character 25 is a space; write it as %20",
            "\(path):27:7: warning: campaign \"languages\": onEnter language \"de\" has no title: content.subject \"Hello\" is shown instead",
            "\(path):29:5: warning: campaign \"languages\": language \"de\" has onEnter strings but none in onExit",
            "Tests/Fixtures/xml/lint/Locales-broken/a.json:1: warning: missing openButtonTitle, shareButtonTitle, cancelButtonTitle",
            "Tests/Fixtures/xml/lint/Locales-broken/a.json:1: error: fallback cycle a -> b -> a",
            "Tests/Fixtures/xml/lint/Locales-broken/b.json:1: warning: missing openButtonTitle, shareButtonTitle, cancelButtonTitle",
            "Tests/Fixtures/xml/lint/Locales-broken/es.json:1: warning: missing shareButtonTitle, cancelButtonTitle",
        ]
        #expect(lines.count == expected.count, "\(result.stdout)")
        for (line, start) in zip(lines, expected) { #expect(line.hasPrefix(start), "\(line)") }
        #expect(result.stderr == "lint: 6 errors, 8 warnings in 1 campaign file and 4 locales (now 2026-06-01T00:00:00Z)\n")
    }

    @Test func xmlLoadErrorsAreLintErrorsWithColumns() throws {
        let result = try CommandRunner.run(["lint", "--campaigns", "Tests/Fixtures/xml/mistakes.xml"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Tests/Fixtures/xml/mistakes.xml:3:25: error: trigger=\"entr\" is not a trigger"))
        #expect(result.stdout.split(separator: "\n").count == 9)
    }

    @Test func malformedJSONBeaconsAreLintErrors() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bad-beacon.json"
        try #"{"eid": "b", "type": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d00100000zz"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["lint", "--campaigns", path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("\(path):1:37: error: `beacons[0]`: \"b9407f30f5f8466eaff925556b57fe6d00100000zz\" is not a beacon"))
    }

    @Test func badNowIsBadUsage() throws {
        let result = try CommandRunner.run(["lint", "--now", "tomorrow"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--now tomorrow is not a date"))
    }
}
