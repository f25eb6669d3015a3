import BeaconRules
import BeaconRulesXML
import CampaignFiles
import Testing

/// Every mistake in an export gets one message a campaign manager can act on, at file:line:column.
@Suite struct XMLMistakeTests {
    struct Mistake: CustomTestStringConvertible, Sendable {
        var name: String
        /// The campaign element(s), on line 2 of the export onwards.
        var xml: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { name }
    }

    static let beacon = "<beacon>\(XMLSupport.pid1)</beacon>"

    static let mistakes: [Mistake] = [
        Mistake(name: "unknown element", xml: "<campaign eid=\"a\" type=\"silent\">\(beacon)<contnet/></campaign>", line: 2, column: 92,
                message: "unknown element \"contnet\" in <campaign>; did you mean \"content\"?"),
        Mistake(name: "unknown attribute", xml: "<campaign eid=\"a\" type=\"silent\" supressionTime=\"60\">\(beacon)</campaign>", line: 2, column: 33,
                message: "unknown attribute \"supressionTime\" in <campaign>; did you mean \"suppressionTime\"?"),
        Mistake(name: "unknown attribute of strings", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)\n<onEnter><strings lang=\"en\" tittle=\"x\"/></onEnter></campaign>", line: 3, column: 29,
                message: "unknown attribute \"tittle\" in <strings>; did you mean \"title\"?"),
        Mistake(name: "a name too far from any valid one lists them", xml: "<campaign eid=\"a\" type=\"silent\" colour=\"red\"/>", line: 2, column: 33,
                message: "unknown attribute \"colour\" in <campaign> (expected one of: eid, name, trigger, type"),
        Mistake(name: "missing eid", xml: "<campaign type=\"silent\">\(beacon)</campaign>", line: 2, column: 1,
                message: "<campaign> has no eid attribute; give every campaign a unique id"),
        Mistake(name: "empty eid", xml: "<campaign eid=\" \" type=\"silent\">\(beacon)</campaign>", line: 2, column: 11,
                message: "eid is empty"),
        Mistake(name: "bad trigger", xml: "<campaign eid=\"a\" trigger=\"entry\" type=\"silent\">\(beacon)</campaign>", line: 2, column: 19,
                message: "trigger=\"entry\" is not a trigger; did you mean \"enter\"? expected \"enter\", \"exit\", \"enterExit\""),
        Mistake(name: "bad type", xml: "<campaign eid=\"a\" type=\"popup\">\(beacon)</campaign>", line: 2, column: 19,
                message: "type=\"popup\" is not a type; expected \"notification\", \"website\", \"inApp\", \"silent\""),
        Mistake(name: "missing type", xml: "<campaign eid=\"a\">\(beacon)</campaign>", line: 2, column: 1,
                message: "<campaign> has no type attribute"),
        Mistake(name: "bad deliverAt", xml: "<campaign eid=\"a\" type=\"silent\" deliverAt=\"2016-02-30T10:00:00Z\">\(beacon)</campaign>", line: 2, column: 33,
                message: "deliverAt=\"2016-02-30T10:00:00Z\" is not a date"),
        Mistake(name: "bad timeframe start", xml: "<campaign eid=\"a\" type=\"silent\">\(beacon)\n  <timeframe start=\"next monday\"/></campaign>", line: 3, column: 14,
                message: "start=\"next monday\" is not a date"),
        Mistake(name: "short pid", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon>b9407f30f5f8466eaff925556b57fe6d00100000</beacon></campaign>", line: 3, column: 9,
                message: "is not a beacon: it has 40 characters"),
        Mistake(name: "pid with a major out of range", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon>b9407f30f5f8466eaff925556b57fe6d9999900001</beacon></campaign>", line: 3, column: 9,
                message: "the major 99999 is out of range 0...65535"),
        Mistake(name: "beacon uuid that is not hex", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon uuid=\"not-a-uuid\" major=\"1\" minor=\"2\"/></campaign>", line: 3, column: 9,
                message: "uuid=\"not-a-uuid\" is not a proximity UUID"),
        Mistake(name: "beacon minor out of range", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon uuid=\"b9407f30f5f8466eaff925556b57fe6d\" major=\"1\" minor=\"65536\"/></campaign>", line: 3, column: 59,
                message: "minor=\"65536\" is not a beacon minor; expected a whole number 0...65535"),
        Mistake(name: "beacon major without minor", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon uuid=\"b9407f30f5f8466eaff925556b57fe6d\" major=\"1\"/></campaign>", line: 3, column: 49,
                message: "<beacon> has major but not minor"),
        Mistake(name: "empty beacon", xml: "<campaign eid=\"a\" type=\"silent\">\n<beacon/></campaign>", line: 3, column: 1,
                message: "empty <beacon>; expected a 42-char pid"),
        Mistake(name: "payload that is not JSON", xml: "<campaign eid=\"a\" type=\"silent\">\(beacon)\n<content><payload>{\"room\": 2,\n  \"guide\": yes}</payload></content></campaign>", line: 4, column: 12,
                message: "<payload> is not JSON:"),
        Mistake(name: "payload with a syntax error on its first line", xml: "<campaign eid=\"a\" type=\"silent\"><content><payload>{room}</payload></content></campaign>", line: 2, column: 52,
                message: "<payload> is not JSON:"),
        Mistake(name: "onEnter with a payload that is not an object", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)<content><payload>[1]</payload></content>\n<onEnter><strings lang=\"en\" title=\"x\"/></onEnter></campaign>", line: 3, column: 1,
                message: "<onEnter> can not be merged into <payload>: the payload is an array, not a JSON object"),
        Mistake(name: "onEnter given twice", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)<content><payload>{\"onEnter\": {}}</payload></content>\n<onEnter><strings lang=\"en\" title=\"x\"/></onEnter></campaign>", line: 3, column: 1,
                message: "<onEnter> and the payload's own \"onEnter\" member both give the onEnter block"),
        Mistake(name: "strings without lang", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)\n<onExit><strings title=\"x\"/></onExit></campaign>", line: 3, column: 9,
                message: "<strings> has no lang"),
        Mistake(name: "a language twice", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)\n<onExit><strings lang=\"de\"/><strings lang=\"DE\"/></onExit></campaign>", line: 3, column: 38,
                message: "lang=\"DE\" appears twice in <onExit>"),
        Mistake(name: "bad confirmAction", xml: "<campaign eid=\"a\" type=\"notification\">\(beacon)\n<onEnter confirmAction=\"visit\"/></campaign>", line: 3, column: 10,
                message: "confirmAction=\"visit\" is not a confirm action; expected \"open\" or \"share\""),
        Mistake(name: "bad boolean", xml: "<campaign eid=\"a\" type=\"silent\" sendOnlyOnce=\"yes\">\(beacon)</campaign>", line: 2, column: 33,
                message: "sendOnlyOnce=\"yes\" is not a boolean; expected \"true\" or \"false\""),
        Mistake(name: "bad number", xml: "<campaign eid=\"a\" type=\"silent\" delay=\"2m\">\(beacon)</campaign>", line: 2, column: 33,
                message: "delay=\"2m\" is not a number"),
        Mistake(name: "negative delay reaches the decoder and is still placed in the XML", xml: "<campaign eid=\"a\" type=\"silent\"\n  delay=\"-5\">\(beacon)</campaign>", line: 3, column: 3,
                message: "`delay`: expected a number of seconds >= 0, found -5"),
        Mistake(name: "stray text", xml: "<campaign eid=\"a\" type=\"silent\">\(beacon) oops</campaign>", line: 2, column: 33,
                message: "<campaign> holds text"),
        Mistake(name: "markup inside subject", xml: "<campaign eid=\"a\" type=\"silent\"><content><subject>Hi <b>there</b></subject></content></campaign>", line: 2, column: 54,
                message: "<subject> holds an element; it takes text only"),
        Mistake(name: "second content", xml: "<campaign eid=\"a\" type=\"silent\"><content/>\n<content/></campaign>", line: 3, column: 1,
                message: "a second <content> in this <campaign>"),
    ]

    @Test(arguments: mistakes)
    func mistakeIsReportedWhereItIs(_ mistake: Mistake) throws {
        let (campaigns, diagnostics) = XMLSupport.read(XMLSupport.export(mistake.xml))
        let errors = diagnostics.filter { $0.severity == .error }
        #expect(campaigns.isEmpty)
        try #require(errors.count == 1, "\(diagnostics)")
        #expect(errors[0].message.contains(mistake.message), "\(errors[0].message)")
        #expect(errors[0].location == SourceLocation(file: "inline.xml", line: mistake.line, column: mistake.column), "\(errors[0])")
    }

    @Test func wrongRootElementSaysWhatToWrap() {
        let errors = XMLSupport.errors("<campaign eid=\"a\" type=\"silent\"/>")
        #expect(errors.first?.message.contains("wrap the <campaign> elements in <campaigns xmlns=\"urn:beaconrules:campaigns:1\">") == true)
    }

    @Test func wrongNamespaceIsNamed() {
        let errors = XMLSupport.errors("<campaigns xmlns=\"urn:example:other\"/>")
        #expect(errors.first?.message.contains("expected xmlns=\"urn:beaconrules:campaigns:1\"") == true)
    }

    @Test func everyMistakeOfAFileIsReportedNotOnlyTheFirst() {
        let path = Paths.fixture("xml/mistakes.xml")
        let catalog = XMLSupport.reader.load(paths: [path])
        let rendered = catalog.errors.map(\.description)
        #expect(rendered == [
            "\(path):3:25: error: trigger=\"entr\" is not a trigger; did you mean \"enter\"? expected \"enter\", \"exit\", \"enterExit\"",
            "\(path):3:40: error: type=\"notificaton\" is not a type; did you mean \"notification\"? expected \"notification\", \"website\", \"inApp\", \"silent\"",
            "\(path):3:59: error: unknown attribute \"suppresionTime\" in <campaign>; did you mean \"suppressionTime\"? (expected one of: eid, name, trigger, type, suppressionTime, sendOnlyOnce, delay, dwell, deliverAt, instant, sound, badge)",
            "\(path):3:80: error: deliverAt=\"2016-13-10T14:15:00Z\" is not a date (month 13 is not 1...12); expected RFC 3339 like 2016-05-10T14:15:00.000+0200 or 2016-05-10T12:15:00Z",
            "\(path):4:13: error: <beacon>b9407f30f5f8466eaff925556b57fe6d00100000</beacon> is not a beacon: it has 40 characters (dashes ignored); expected a 42-char pid as text (32 hex proximity UUID + 5-digit major + 5-digit minor), or uuid=\"...\" with major and minor (0...65535), or uuid alone for every beacon of that UUID",
            "\(path):5:57: error: major=\"70000\" is not a beacon major; expected a whole number 0...65535",
            "\(path):6:5: error: unknown element \"contnet\" in <campaign>; did you mean \"content\"? (expected one of: beacon, timeframe, content, onEnter, onExit, notificationAction, categoryAction, categoryName, mediaAttachment)",
            "\(path):9:28: error: <payload> is not JSON: expected a JSON value, found `}`; write the payload as a JSON value, e.g. {\"room\": 2} (inside <![CDATA[ ... ]]> if it holds < or &)",
            "\(path):12:3: error: <campaign> has no eid attribute; give every campaign a unique id, e.g. <campaign eid=\"spring-sale-entrance\" ...>",
        ])
    }
}
