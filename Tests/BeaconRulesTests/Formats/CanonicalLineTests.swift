@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// The one-pass reader of the usual event layout (`EventParser.parseCanonical`) must give exactly
/// what the general parser gives, for the lines it takes and for every line it leaves to it.
@Suite("Event lines in the usual layout")
struct CanonicalLineTests {
    enum Outcome: Equatable {
        case input(InputLine)
        case error(EventError)
    }

    static func viaFastPath(_ line: [UInt8]) -> Outcome {
        line.withUnsafeBufferPointer { b in
            outcome(Result { () throws(EventError) in try EventParser.parseInput(line: b, fallbackID: "t:1") })
        }
    }

    static func viaGeneralParser(_ line: [UInt8]) -> Outcome {
        line.withUnsafeBufferPointer { b in
            outcome(Result { () throws(EventError) in try EventParser.parseInputInGeneral(line: b, fallbackID: "t:1") })
        }
    }

    static func outcome(_ result: Result<InputLine, EventError>) -> Outcome {
        switch result {
        case .success(let input): .input(input)
        case .failure(let error): .error(error)
        }
    }

    static func tookFastPath(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { EventParser.parseCanonical($0) != nil }
    }

    static let lines = [
        #"{"id":"e-1","device":"dev-86747","type":"enter","beacon":"18996e150f9a0f68388b15ded014bc5e0000500062","time":"2026-06-05T06:00:00.071Z","locale":"en-US"}"#,
        #"{"id":"e-2","device":"d","type":"exit","beacon":"18996E150F9A0F68388B15DED014BC5E6553565535","time":"2016-05-10T16:00:00Z"}"#,
        #"{"id":"a-rather-long-event-id-0123456789","device":"a-rather-long-device-id-0123456789","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2024-02-29T23:59:59.999Z","locale":"zh-Hant-TW"}"#,
    ]

    @Test func usualLinesTakeTheFastPathAndGiveTheGeneralParsersEvent() {
        for text in Self.lines {
            let line = Array(text.utf8)
            #expect(Self.tookFastPath(line), "\(text)")
            #expect(Self.viaFastPath(line) == Self.viaGeneralParser(line), "\(text)")
        }
    }

    @Test func theBenchmarkWorkloadTakesTheFastPath() {
        var bytes: [UInt8] = []
        WorkloadEquivalenceTests.spec.generateEvents { bytes += $0 }
        var lines = 0
        for line in bytes.split(separator: 0x0A).prefix(3_000) {
            let line = Array(line)
            #expect(Self.tookFastPath(line))
            #expect(Self.viaFastPath(line) == Self.viaGeneralParser(line))
            lines += 1
        }
        #expect(lines == 3_000)
    }

    /// Every byte of each usual line replaced by bytes that matter to JSON, UTF-8 and the layout;
    /// every truncation; a space inserted anywhere: both paths agree on all of them (the event,
    /// or the very same error message).
    @Test(arguments: [0, 1, 2])
    func everyMutationGivesWhatTheGeneralParserGives(lineIndex: Int) {
        let original = Array(Self.lines[lineIndex].utf8)
        let replacements: [UInt8] = [0x22, 0x5C, 0x20, 0x01, 0x7D, 0x7B, 0x2C, 0x3A, 0x30, 0x39, 0x61, 0x46, 0x67, 0x5A, 0x2E, 0x2D, 0x54, 0xC3, 0xA9, 0xFF]
        var mutated = 0, fast = 0
        func check(_ line: [UInt8]) {
            mutated += 1
            if Self.tookFastPath(line) { fast += 1 }
            let a = Self.viaFastPath(line), b = Self.viaGeneralParser(line)
            if a != b { Issue.record("paths differ for \(String(decoding: line, as: UTF8.self)):\nfast: \(a)\ngeneral: \(b)") }
        }
        for i in original.indices {
            for byte in replacements where original[i] != byte {
                var line = original
                line[i] = byte
                check(line)
            }
            check(Array(original[..<i]))
            var spaced = original
            spaced.insert(0x20, at: i)
            check(spaced)
        }
        #expect(mutated > 2_000)
        // Some mutations keep the usual layout (another digit, another letter in an id).
        #expect(fast > 100)
    }

    @Test func linesOutsideTheLayoutAreLeftToTheGeneralParser() {
        let outside = [
            #"{"device":"d","id":"e-1","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z"}"#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":1462896000000}"#,
            #"{"id":"e-1","device":"d\u00e9","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z"}"#,
            #"{"id":"e-1","device":"dé","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z"}"#,
            #"{"id":"","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z"}"#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00+02:00"}"#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z","locale":""}"#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z","extra":1}"#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-05-10T16:00:00Z"} "#,
            #"{"id":"e-1","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2016-02-30T16:00:00Z"}"#,
        ]
        for text in outside {
            let line = Array(text.utf8)
            #expect(!Self.tookFastPath(line), "\(text)")
            #expect(Self.viaFastPath(line) == Self.viaGeneralParser(line), "\(text)")
        }
    }
}
