import BeaconRules
import Testing

/// The one way every driver reads a line: what a line without `id` is known by, blank lines,
/// outbox requests, and the two entry points agreeing.
@Suite("LineIntake")
struct LineIntakeTests {
    static let withoutID = #"{"device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00+02:00"}"#
    static let withID = #"{"id":"ev-01","device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00+02:00"}"#

    @Test func aLineWithoutIDIsKnownByItsPlaceInReplayAndNotIdentified() throws {
        guard case .input(let input, let identified) = LineIntake.replay(source: "day.jsonl").read(Self.withoutID, number: 3) else {
            Issue.record("not input"); return
        }
        #expect(input.id == "day.jsonl:3")
        #expect(!identified)
    }

    @Test func aLineWithoutIDOnAConnectionGetsItsContentIDAndIsIdentified() throws {
        guard case .input(.beacon(let event), let identified) = LineIntake.connection(readsOutboxRequests: true).read(Self.withoutID, number: 3) else {
            Issue.record("not an event"); return
        }
        var unnamed = try EventParser.parse(line: Self.withoutID, fallbackID: "")
        unnamed.id = EventIdentity.id(of: unnamed)
        #expect(event == unnamed)
        #expect(event.id.hasPrefix("auto-"))
        #expect(identified)
    }

    @Test func aLineWithItsOwnIDIsIdentifiedByEveryIntake() {
        for intake in [LineIntake.replay(source: "x"), .connection(readsOutboxRequests: false)] {
            guard case .input(let input, true) = intake.read(Self.withID, number: 1) else { Issue.record("not identified: \(intake)"); continue }
            #expect(input.id == "ev-01")
        }
    }

    @Test func aBlankLineIsSkippedByReplayAndRefusedOnAConnection() {
        guard case .blank = LineIntake.replay(source: "x").read(" \t", number: 1) else { Issue.record("not skipped"); return }
        guard case .rejected(let message) = LineIntake.connection(readsOutboxRequests: true).read(" \t", number: 1) else {
            Issue.record("not refused"); return
        }
        #expect(message == LineIntake.blankLineMessage)
    }

    @Test func anOutboxRequestIsReadOnlyByAnIntakeThatReadsThem() {
        let request = #"{"type":"outbox","after":7}"#
        guard case .outbox(after: 7) = LineIntake.connection(readsOutboxRequests: true).read(request, number: 1) else { Issue.record("not an outbox request"); return }
        guard case .rejected = LineIntake.connection(readsOutboxRequests: false).read(request, number: 1) else { Issue.record("not refused"); return }
        guard case .rejected = LineIntake.replay(source: "x").read(request, number: 1) else { Issue.record("not refused by replay"); return }
    }

    @Test func readingInGeneralGivesWhatReadingGivesForEveryMuseumLine() throws {
        let intake = LineIntake.replay(source: "museum-broken.jsonl")
        for (n, line) in Paths.read(Paths.fixture("museum-broken.jsonl")).split(separator: "\n").enumerated() {
            var text = String(line)
            let (read, general) = text.withUTF8 { (intake.read($0, number: n + 1), intake.readInGeneral($0, number: n + 1)) }
            switch (read, general) {
            case (.input(let a, let x), .input(let b, let y)): #expect(a == b && x == y, "line \(n + 1)")
            case (.rejected(let a), .rejected(let b)): #expect(a == b, "line \(n + 1)")
            case (.blank, .blank): break
            default: Issue.record("line \(n + 1): \(read) against \(general)")
            }
        }
    }
}
