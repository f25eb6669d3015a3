@testable import BeaconRules
import Testing

/// Events read in place (`InPlaceEvent`, `InPlaceEventBatch`): the hot path never makes a
/// `String` of a field, and must give exactly what the `String` path gives.
@Suite("Events read in place")
struct InPlaceEventTests {
    static let beacon = BeaconID(pid: ResponseTests.beacon)!

    static let awkward: [BeaconEvent] = [
        BeaconEvent(id: "e-1", device: "dev-1", kind: .enter, beacon: beacon, time: Timestamp(milliseconds: 1_000), locale: "de-DE"),
        BeaconEvent(id: "e-2", device: "dev-2", kind: .exit, beacon: beacon, time: Timestamp(milliseconds: 2_000), locale: nil),
        BeaconEvent(id: "", device: "", kind: .enter, beacon: beacon, time: Timestamp(milliseconds: 0), locale: ""),
        BeaconEvent(id: "quote \" and \\ slash", device: "Gerät-ü", kind: .enter, beacon: beacon, time: Timestamp(milliseconds: -5), locale: "zh-Hant-TW"),
        BeaconEvent(id: String(repeating: "long-id-", count: 3_000), device: String(repeating: "d", count: 40), kind: .exit, beacon: beacon, time: Timestamp(milliseconds: 9), locale: "en"),
    ]

    @Test func aBatchGivesBackTheEventsItWasGivenPastItsFirstBuffer() {
        var batch = InPlaceEventBatch(bytes: 64)
        for event in Self.awkward { batch.append(event) }
        let count = batch.count
        #expect(count == Self.awkward.count)
        for (i, event) in Self.awkward.enumerated() {
            #expect(batch[i].event == event)
            // Copied-in events are checked for escapes when written; only usual lines are known plain.
            #expect(!batch[i].isPlain)
        }
        batch.removeAll()
        let empty = batch.isEmpty
        #expect(empty)
        batch.append(Self.awkward[1])
        #expect(batch[0].event == Self.awkward[1])
    }

    @Test func anEventReadInPlaceIsTheEvent() {
        for event in Self.awkward { #expect(InPlaceEvent.with(event) { $0.event } == event) }
    }

    /// Lines in the usual layout are read into the batch as the general parser reads them; any
    /// other line is refused and adds nothing.
    @Test func usualLinesAreReadInPlaceAsTheParserReadsThem() throws {
        let lines = WorkloadEquivalenceTests.events().split(separator: "\n").prefix(2_000).map(String.init) + [
            #"{"id":"e-x","device":"d","type":"exit","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2026-05-10T16:00:00Z"}"#,
        ]
        var batch = InPlaceEventBatch(bytes: 64)
        for line in lines {
            let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
            #expect(read)
        }
        for (i, line) in lines.enumerated() {
            #expect(batch[i].event == (try EventParser.parse(line: line, fallbackID: "x")))
            #expect(batch[i].isPlain)
        }
        let others = [
            #"{"device":"d","id":"e","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2026-05-10T16:00:00Z"}"#,
            #"{"id":"e\"","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2026-05-10T16:00:00Z"}"#,
            #"{"id":"e","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":1778428800000}"#,
            "",
        ]
        for line in others {
            let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
            #expect(!read, "\(line)")
        }
        let count = batch.count
        #expect(count == lines.count)
    }

    /// A batch holds at most `byteLimit` bytes of strings (2 GiB: its offsets are 32-bit; here a
    /// small limit): an event or usual line that does not fit in what is left is refused and adds
    /// nothing, one that fits exactly is taken, and an emptied batch takes it again.
    @Test func aBatchRefusesWhatDoesNotFitInItsByteLimit() {
        let line = #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2026-05-10T16:00:00Z"}"#
        let length = line.utf8.count
        var batch = InPlaceEventBatch(bytes: 64, byteLimit: 2 * length)
        func append(_ line: String) -> Bool { Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) } }
        #expect(append(line) && append(line))
        #expect(!append(line))
        let event = BeaconEvent(id: "e", device: "d", kind: .enter, beacon: Self.beacon, time: Timestamp(milliseconds: 0), locale: "de")
        let fits = batch.canHold(event)
        #expect(!fits)
        var count = batch.count, bytes = batch.byteCount
        #expect(count == 2 && bytes == 2 * length)
        batch.removeAll()
        #expect(append(line))
        // "e", "d" and "de": 4 bytes, taken when exactly 4 are left.
        var exact = InPlaceEventBatch(bytes: 64, byteLimit: length + 4)
        let first = Array(line.utf8).withUnsafeBufferPointer { exact.appendUsualLayout($0) }
        let exactFits = exact.canHold(event)
        #expect(first && exactFits)
        exact.append(event)
        let longer = BeaconEvent(id: "e", device: "dd", kind: .enter, beacon: Self.beacon, time: Timestamp(milliseconds: 0), locale: nil)
        let longerFits = exact.canHold(longer)
        #expect(!longerFits)
        count = exact.count
        bytes = exact.byteCount
        #expect(count == 2 && bytes == length + 4)
        let second = exact[1].event
        #expect(second == event)
        // The default limit is the offsets' range.
        let limit = InPlaceEventBatch().byteLimit
        #expect(limit == Int(Int32.max))
    }

    /// A batch converts a date once and reuses it while the lines stay on that day: dates one
    /// after another across month and year ends, leap days, and impossible dates right after a
    /// valid one of the same month (or the same day of another year) are each read as the
    /// general parser reads them, or refused as it refuses them.
    @Test func datesReusedAcrossLinesAreReadAsTheParserReadsThem() {
        let times = [
            "2024-02-28T23:59:59.999Z", "2024-02-28T00:00:00.001Z", "2024-02-29T12:00:00Z", "2024-02-30T12:00:00Z",
            "2024-02-29T12:00:00.500Z", "2023-02-29T12:00:00Z", "2023-02-28T12:00:00Z", "2023-12-31T23:59:59.999Z",
            "2024-01-01T00:00:00.000Z", "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T00:00:60Z",
            "2024-01-32T00:00:00Z", "2024-01-01T07:08:09.010Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
            "2024-01-00T00:00:00Z", "2024-01-01T07:08:09.010Z", "1970-01-01T00:00:00Z", "2100-02-29T00:00:00Z",
            "2000-02-29T00:00:00Z", "2000-02-29T23:59:59.999Z",
        ]
        var batch = InPlaceEventBatch()
        for (k, time) in times.enumerated() {
            let line = #"{"id":"e\#(k)","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"\#(time)"}"#
            let before = batch.count
            let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
            let general = try? EventParser.parse(line: line, fallbackID: "x")
            #expect(read == (general != nil), "\(time)")
            if read, let general {
                #expect(batch.count == before + 1)
                #expect(batch[before].time == general.time, "\(time)")
            } else {
                #expect(batch.count == before)
            }
        }
    }

    /// The in-memory store finds a device by its bytes exactly as by its `String`.
    @Test func theStoreFindsDevicesByTheirBytesAsByTheirText() {
        var store = InMemorySuppressionStore()
        let devices = ["dev-1", "Gerät-ü", "", String(repeating: "x", count: 40), "dev-10"]
        for device in devices.dropLast() { _ = store.key(device: device) }
        for device in devices {
            var text = device
            let byBytes = text.withUTF8 { store.existingKey(deviceUTF8: $0) }
            #expect(byBytes == store.existingKey(device: device))
        }
        var added = "dev-10"
        let key = added.withUTF8 { store.key(deviceUTF8: $0) }
        #expect(key == store.existingKey(device: "dev-10"))
        #expect(key == 4)
    }

    /// Records written from events read in place (locales short enough for the engine's one-word
    /// compare, and longer ones, interleaved) are the records the reference path builds.
    @Test func shortAndLongLocalesChooseAsTheReferencePathDoes() throws {
        let campaign = """
            {"eid": "hello", "trigger": 3, "type": 1, "beacons": ["\(ResponseTests.beacon)"],
             "content": {"subject": "Hi", "body": "There", "url": null,
                         "payload": {"onEnter": {"de": {"title": "Hallo", "message": "Da"}, "zh-Hant": {"title": "你好", "message": "那裡"},
                                                 "en": {"title": "Hello", "message": "There"}}}}}
            """
        var fast = try Harness.engine(campaign)
        var reference = try Harness.engine(campaign)
        let locales: [String?] = ["de-DE", "zh-Hant-TW", nil, "de-DE-1996", "en", "zh-Hant-TW", "de-DE", "fr", "de-AT-x-private"]
        var writer = JSONWriter()
        var expected = ""
        for (n, locale) in (locales + locales).enumerated() {
            let event = BeaconEvent(id: "e\(n)", device: "d\(n)", kind: n % 2 == 0 ? .enter : .exit, beacon: Self.beacon, time: Timestamp(milliseconds: Int64(n) * 1_000), locale: locale)
            var batch = InPlaceEventBatch()
            batch.append(event)
            fast.write(batch[0], into: &writer)
            for record in reference.process(event) { expected += record.jsonLine + "\n" }
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
        #expect(expected.contains("你好") && expected.contains("Hallo") && expected.contains("Hello"))
    }

    /// A record's head copies the line's pid and time when the line writes them as records do,
    /// and formats them otherwise: upper-case hex, zero milliseconds, no milliseconds, and a
    /// time the record writes differently all give the reference records.
    @Test func pidAndTimeAreCopiedOnlyWhenWrittenAsRecordsWriteThem() throws {
        var fast = try Harness.engine(ResponseTests.campaign)
        var reference = try Harness.engine(ResponseTests.campaign)
        let lower = ResponseTests.beacon, upper = ResponseTests.beacon.uppercased()
        let variants = [
            (lower, "2026-05-10T16:00:00.071Z", true, true), (upper, "2026-05-10T16:00:00.071Z", false, true),
            (lower, "2026-05-10T16:00:00.000Z", true, false), (upper, "2026-05-10T16:00:00Z", false, true),
            (lower, "2026-05-10T16:00:00.100Z", true, true), (lower, "2026-05-10T16:00:59Z", true, true),
        ]
        var batch = InPlaceEventBatch()
        for (n, (pid, time, _, _)) in variants.enumerated() {
            let line = #"{"id":"e\#(n)","device":"d\#(n)","type":"enter","beacon":"\#(pid)","time":"\#(time)","locale":"en"}"#
            let read = Array(line.utf8).withUnsafeBufferPointer { batch.appendUsualLayout($0) }
            #expect(read)
        }
        var writer = JSONWriter()
        var expected = ""
        for (n, (_, _, pidCopied, timeCopied)) in variants.enumerated() {
            #expect((batch[n].pidText != nil) == pidCopied)
            #expect((batch[n].timeText != nil) == timeCopied)
            fast.write(batch[n], into: &writer)
            for record in reference.process(batch[n].event) { expected += record.jsonLine + "\n" }
        }
        let got = String(decoding: writer.bytes, as: UTF8.self)
        #expect(got == expected)
        // `.000Z` is written without milliseconds, `.100Z` with all three digits.
        #expect(got.contains(#""fireDate":"2026-05-10T16:00:00Z""#))
        #expect(got.contains(#""fireDate":"2026-05-10T16:00:00.100Z""#))
        #expect(!got.contains(upper))
    }
}
