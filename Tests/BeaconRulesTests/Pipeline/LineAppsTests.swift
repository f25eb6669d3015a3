@testable import BeaconRules
import Testing

/// `LineApps.read`, the one scan of a line that names its app (`serve --apps`, `replay --apps`):
/// the event's scan meets the `app` member on the way, so a line is no longer parsed as JSON to
/// find its app and then again as input. Every line reads as it did with the two parses: the same
/// app, the same input or outbox request, the same refusal with the same message.
@Suite("LineApps: a line and its app in one scan")
struct LineAppsTests {
    static let apps = LineApps(ids: ["museum", "gallery"])
    static let pid = "b9407f30f5f8466eaff925556b57fe6d0010000001"
    static let event = #""device":"anna","type":"enter","beacon":"\#(pid)","time":"2026-06-05T10:00:00Z""#
    static let response = #""device":"anna","notification":"c:anna:e-1","action":"open","time":"2026-06-05T10:01:00Z""#

    static let lines = [
        #"{"app":"museum","id":"e-1",\#(event)}"#,
        #"{"id":"e-1",\#(event),"app":"gallery"}"#,
        #"{"app":"museum",\#(event)}"#,
        #"{"app":"museum",\#(event),"locale":"de-DE","extra":{"app":"gallery"}}"#,
        #"{"app":"gallery","app":"museum","id":"e-2",\#(event)}"#,
        #"{"app":1,"app":"museum","id":"e-3",\#(event)}"#,
        #"{"\u0061pp":"gallery","id":"e-4",\#(event)}"#,
        #"{"app":"g\u0061llery","id":"e-5",\#(event)}"#,
        #"{"app":"cinema","id":"e-6",\#(event)}"#,
        #"{"app":"\#(String(repeating: "x", count: 80))","id":"e-7",\#(event)}"#,
        #"{"app":null,"id":"e-8",\#(event)}"#,
        #"{"id":"e-9",\#(event)}"#,
        #"{"app":"museum","type":"sighting","device":"anna","beacon":"\#(pid)","rssi":-60,"time":1780000000000}"#,
        #"{"app":"gallery","type":"response","id":"r-1",\#(response)}"#,
        #"{"type":"response","id":"r-2",\#(response),"app":"museum"}"#,
        #"{"type":"response","id":"r-3",\#(response)}"#,
        #"{"type":"outbox","after":2,"app":"museum"}"#,
        #"{"type":"outbox","after":2}"#,
        #"{"app":"museum","type":"enter"}"#,
        #"{"app":"museum","id":"e-10","device":"anna","type":"enter","beacon":"\#(pid)","time":"yesterday"}"#,
        #"{"app":"cinema","type":"enter"}"#,
        #"{"type":"enter","app":"museum"#,
        "not json",
        "[1, 2]",
        #"{"app":"museum","id":"e-11",\#(event)} trailing"#,
    ]

    /// The line as the two parses read it: its app from the JSON tree, then the line by the intake.
    static func twoParses(_ line: String, _ intake: LineIntake) -> String {
        var text = line
        let app = text.withUTF8 { apps.app(of: $0) }
        switch app {
        case .failure(let refusal): return "refused: \(refusal.message)"
        case .success(let index): return "\(index): \(intake.read(line, number: 7))"
        }
    }

    static func oneScan(_ line: String, _ intake: LineIntake) -> String {
        switch apps.read(line, number: 7, intake: intake) {
        case .failure(let refusal): return "refused: \(refusal.message)"
        case .success(let read): return "\(read.app): \(read.line)"
        }
    }

    @Test(arguments: [LineIntake.connection(readsOutboxRequests: true), LineIntake(source: "day.jsonl", linesWithoutID: .knownByPlace)])
    func everyLineReadsAsWithTwoParses(intake: LineIntake) {
        for line in Self.lines {
            #expect(Self.oneScan(line, intake) == Self.twoParses(line, intake), "\(line)")
        }
    }

    @Test func theFirstAppMemberNamesTheAppAndTheLineIsInput() {
        let intake = LineIntake.connection(readsOutboxRequests: true)
        guard case .success(let read) = Self.apps.read(Self.lines[4], number: 1, intake: intake), case .input(.beacon(let event), _) = read.line else {
            Issue.record("not read as an event")
            return
        }
        #expect(read.app == 1)
        #expect(event.id == "e-2")
        guard case .failure(let refusal) = Self.apps.read(Self.lines[5], number: 1, intake: intake) else {
            Issue.record("a first `app` that is not a string was taken")
            return
        }
        #expect(refusal.message.hasPrefix("missing `app` (a string)"))
    }
}
