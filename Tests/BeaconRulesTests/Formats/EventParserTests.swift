@testable import BeaconRules
import Testing

/// Events in (SPEC section 1): each kind of malformed line has its own message.
@Suite("Event parser")
struct EventParserTests {
    let pid = "7367672374000000ffff0000ffff00070733107331"

    func parse(_ line: String) throws(EventError) -> BeaconEvent {
        try EventParser.parse(line: line, fallbackID: "trace.jsonl:7")
    }

    func message(_ line: String) -> String? {
        do { _ = try parse(line); return nil } catch { return error.message }
    }

    @Test func specExampleLinesParse() throws {
        let enter = try parse(#"{"id":"e-1001","device":"d-42","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z","locale":"de-DE"}"#)
        #expect(enter == BeaconEvent(id: "e-1001", device: "d-42", kind: .enter, beacon: BeaconID(pid: pid)!, time: .at("2016-05-10T16:00:00Z"), locale: "de-DE"))
        let exit = try parse(#"{"id":"e-1002","device":"d-42","type":"exit","beacon":{"uuid":"73676723-7400-0000-FFFF-0000FFFF0007","major":7331,"minor":7331},"time":1462896060000}"#)
        #expect(exit.kind == .exit)
        #expect(exit.beacon == BeaconID(pid: pid))
        #expect(exit.time == Timestamp(milliseconds: 1_462_896_060_000))
    }

    @Test func missingIdFallsBackToSourceAndLine() throws {
        #expect(try parse(#"{"device":"d","type":"enter","beacon":"\#(pid)","time":0}"#).id == "trace.jsonl:7")
    }

    @Test func unknownFieldsAndNestedValuesAreIgnored() throws {
        let event = try parse(#"{"extra":{"a":[1,{"b":null}]},"device":"d","type":"enter","beacon":"\#(pid)","time":0,"rssi":-70.5}"#)
        #expect(event.device == "d")
    }

    /// Plain keys are recognised from one 8-byte load, pids and `Z` times read in place: keys that
    /// only start like the event's, and values that only look like a pid or time, take the
    /// general path and mean what they always meant.
    @Test func lookalikeKeysAndValuesTakeTheGeneralPath() throws {
        let event = try parse(#"{"idx":"no","id":"e1","devices":"no","device":"d1","types":"no","type":"exit","timex":"no","time":"2016-05-10T16:00:00.250Z","beacons":"no","beacon":"\#(pid)","localex":"no","locale":"de","rssix":1}"#)
        #expect(event == BeaconEvent(id: "e1", device: "d1", kind: .exit, beacon: BeaconID(pid: pid)!, time: Timestamp(milliseconds: 1_462_896_000_250), locale: "de"))
        // Times that are not 20 or 24 characters of `...Z`, and a pid with an escape in it.
        #expect(try parse(#"{"device":"d","type":"enter","beacon":"\#(pid)","time":"2016-05-10T16:00:00.5Z"}"#).time.milliseconds == 1_462_896_000_500)
        #expect(try parse(#"{"device":"d","type":"enter","beacon":"\#(pid)","time":"2016-05-10T18:00:00+02:00"}"#).time.milliseconds == 1_462_896_000_000)
        #expect(try parse(#"{"device":"d","type":"enter","beacon":"7\#(pid.dropFirst())","time":0}"#).beacon == BeaconID(pid: pid))
        // Short lines: the 8-byte look at a key never reads past the line.
        #expect(message(#"{"id"#) != nil)
        #expect(message(#"{"id":"x"}"#) == "missing field `type`: expected \"enter\" or \"exit\"")
        #expect(message(#"{"time":"2016-05-10T16:00:00Z"#) != nil)
    }

    @Test func escapedFieldNamesAndValuesAreDecoded() throws {
        let event = try parse(#"{"dev\u0069ce":"d\u00fc","type":"enter","beacon":"\#(pid)","time":0}"#)
        #expect(event.device == "dü")
    }

    @Test(arguments: [
        ("not json", "not a JSON object"),
        ("[1]", "found an array"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0"#, "expected `,` or `}`"),
        (#"{"device":"d","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "missing field `type`"),
        (#"{"type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "missing field `device`"),
        (#"{"device":"d","type":"enter","time":0}"#, "missing field `beacon`"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331"}"#, "missing field `time`"),
        (#"{"device":"d","type":"arrive","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, #"expected "enter" or "exit", found "arrive""#),
        (#"{"device":"","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "field `device`: expected a non-empty string"),
        (#"{"device":7,"type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "field `device`: expected a string, found 7"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff0007073310733","time":0}"#, "it has 41 characters"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733199999","time":0}"#, "minor 99999 is out of range"),
        (#"{"device":"d","type":"enter","beacon":{"uuid":"zz","major":1,"minor":1},"time":0}"#, "field `beacon.uuid`"),
        (#"{"device":"d","type":"enter","beacon":{"uuid":"7367672374000000ffff0000ffff0007","major":-1,"minor":1},"time":0}"#, "field `beacon.major`: expected an integer 0...65535"),
        (#"{"device":"d","type":"enter","beacon":{"uuid":"7367672374000000ffff0000ffff0007","major":1},"time":0}"#, "missing `minor`"),
        (#"{"device":"d","type":"enter","beacon":42,"time":0}"#, "expected a 42-char pid string or"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00"}"#, "has no zone"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-02-30T16:00:00Z"}"#, "day 30 does not exist"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":1.5}"#, "not whole epoch milliseconds"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":[]}"#, "expected an RFC 3339 string or epoch milliseconds"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0,"locale":1}"#, "field `locale`: expected a string"),
        (#"{"id":"","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "field `id`: expected a non-empty string"),
        (#"{"device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0} {}"#, "after the JSON object"),
        (#"{"device":"d\q","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#, "invalid escape"),
    ])
    func malformedLineNamesTheProblem(line: String, fragment: String) throws {
        let found = try #require(self.message(line))
        #expect(found.contains(fragment), "\(found)")
    }

    @Test func invalidUTF8IsRejected() {
        let bytes: [UInt8] = Array(#"{"device":""#.utf8) + [0xC3, 0x28] + Array(#"","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":0}"#.utf8)
        #expect(throws: EventError.self) {
            try bytes.withUnsafeBufferPointer { try EventParser.parse(line: $0, fallbackID: "x") }
        }
    }

    @Test func blankLinesAreRecognised() {
        for line in ["", "   ", "\t\r"] {
            #expect(Array(line.utf8).withUnsafeBufferPointer { EventParser.isBlank($0) })
        }
    }

    @Test func errorsCarryTheColumn() throws {
        do {
            _ = try parse(#"{"device":"d","type":"arrive"}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.column == 22)
        }
    }
}
