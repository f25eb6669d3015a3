import BeaconRules
import Foundation
import Testing

/// The real `beaconrules replay` binary: output, errors, exit codes, stdin and `--state`.
@Suite("beaconrules replay (real binary)")
struct ReplayCommandTests {
    @Test func readmeCommandPrintsTheGoldenRecords() throws {
        let result = try CommandRunner.run(["replay", "Tests/Fixtures/museum-day.jsonl"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }

    @Test func brokenLinesGoToStderrAsJSONAndExitIsOne() throws {
        let result = try CommandRunner.run(["replay", "Tests/Fixtures/museum-broken.jsonl", "--campaigns", "Campaigns", "--locales", "Locales"])
        #expect(result.status == 1)
        #expect(result.stdout == Paths.read(Paths.fixture("museum-broken.records.jsonl")))
        #expect(result.stderr == Paths.read(Paths.fixture("museum-broken.errors.jsonl")))
        for line in result.stderr.split(separator: "\n") {
            let error = try JSONParser.parse(String(line))
            #expect(error.objectMembers?.map(\.key) == ["kind", "source", "line", "message"])
            #expect(error["kind"] == .string("error"))
            #expect(error["source"] == .string("Tests/Fixtures/museum-broken.jsonl"))
        }
    }

    /// The reader's edges: a 3 MB line (longer than the 256 KiB chunk a pipe is read in), blank
    /// lines, CRLF endings and a last line with no newline give the records of the same events
    /// written plainly, from a mapped file and from a pipe.
    @Test func longLinesBlankLinesAndALastLineWithoutNewlineAreRead() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        var edged = plain
        // An unknown field of 3 MB in the second line (unknown fields are ignored).
        edged[1] = String(edged[1].dropLast()) + ",\"note\":\"" + String(repeating: "x", count: 3 << 20) + "\"}"
        let text = edged.enumerated().map { i, line in i % 3 == 0 ? line + "\r" : line }.joined(separator: "\n\n")
        try text.write(toFile: dir + "/edged.jsonl", atomically: true, encoding: .utf8)
        try (plain.joined(separator: "\n\n") + "\n").write(toFile: dir + "/plain.jsonl", atomically: true, encoding: .utf8)
        let a = try CommandRunner.run(["replay", dir + "/edged.jsonl"])
        let b = try CommandRunner.run(["replay", dir + "/plain.jsonl"])
        #expect(a.status == 0 && b.status == 0)
        #expect(a.stderr.isEmpty)
        #expect(!a.stdout.isEmpty)
        #expect(a.stdout.replacingOccurrences(of: dir + "/edged.jsonl", with: "T") == b.stdout.replacingOccurrences(of: dir + "/plain.jsonl", with: "T"))
        // A file is mapped; a pipe is read in chunks, and a 3 MB line outgrows the chunk.
        let piped = try CommandRunner.run(["replay"], stdin: text, throughPipe: true)
        #expect(piped.status == 0 && piped.stderr.isEmpty)
        #expect(piped.stdout.replacingOccurrences(of: "stdin:", with: "T:") == b.stdout.replacingOccurrences(of: dir + "/plain.jsonl:", with: "T:"))
    }

    /// A line longer than 16 MiB is not kept: it is reported (source, line, the limit) and
    /// skipped up to its newline, in the middle of the input and as its last line without a
    /// newline, from a mapped file and from a pipe; a line of exactly 16 MiB is read. The other
    /// lines give the records they give without it.
    @Test func linesLongerThanTheLimitAreReportedAndSkipped() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        #expect(plain.count == 21)
        /// `line` with an unknown field that pads it to `length` bytes.
        func padded(_ line: String, to length: Int) -> String {
            let open = String(line.dropLast()) + ",\"note\":\""
            return open + String(repeating: "x", count: length - open.utf8.count - 2) + "\"}"
        }
        let limit = 1 << 24
        let exact = padded(plain[1], to: limit), over = padded(plain[3], to: limit + 1)
        #expect(exact.utf8.count == limit && over.utf8.count == limit + 1)
        // Lines 1-20 (the second one 16 MiB long), 21 too long, 22 the trace's last line, 23 too
        // long and without a newline.
        let lines = [plain[0], exact] + plain[2..<20] + [over, plain[20], over]
        let text = lines.joined(separator: "\n")
        try text.write(toFile: dir + "/long.jsonl", atomically: true, encoding: .utf8)
        let expected = Paths.read(Paths.fixture("museum-day.records.jsonl"))
        for (result, source) in [(try CommandRunner.run(["replay", dir + "/long.jsonl"]), dir + "/long.jsonl"),
                                 (try CommandRunner.run(["replay"], stdin: text, throughPipe: true), "stdin")] {
            #expect(result.status == 1)
            #expect(result.stdout == expected.replacingOccurrences(of: "Tests/Fixtures/museum-day.jsonl:21", with: source + ":22"))
            let errors = [21, 23].map { #"{"kind":"error","source":""# + source + #"","line":\#($0),"message":"line longer than 16777216 bytes; skipped up to its newline"}"# }
            #expect(result.stderr == errors.joined(separator: "\n") + "\n")
        }
    }

    /// Stdin redirected from a file is mapped, from where the descriptor stands: lines another
    /// program read first are not replayed again.
    @Test func stdinFromAFileStartsWhereTheDescriptorStands() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/all.jsonl", atomically: true, encoding: .utf8)
        try (lines.dropFirst(3).joined(separator: "\n") + "\n").write(toFile: dir + "/rest.jsonl", atomically: true, encoding: .utf8)
        // `head` on a file puts the offset back just after the lines it printed.
        #expect(try CommandRunner.shell("(head -n 3 >/dev/null; '\(Paths.binary)' replay > '\(dir)/out') < '\(dir)/all.jsonl'") == 0)
        let rest = try CommandRunner.run(["replay"], stdin: Paths.read(dir + "/rest.jsonl"))
        #expect(!rest.stdout.isEmpty)
        #expect(Paths.read(dir + "/out") == rest.stdout)
    }

    @Test func stdinIsReadWhenNoFileOrDashIsGiven() throws {
        let trace = Paths.read(Paths.fixture("museum-day.jsonl"))
        let fromFile = Paths.read(Paths.fixture("museum-day.records.jsonl"))
        for arguments in [["replay"], ["replay", "-"]] {
            let result = try CommandRunner.run(arguments, stdin: trace)
            #expect(result.status == 0)
            #expect(result.stdout == fromFile.replacingOccurrences(of: "Tests/Fixtures/museum-day.jsonl:21", with: "stdin:21"))
        }
    }

    @Test func severalFilesAreReplayedInOrderWithOneState() throws {
        let dir = Paths.temporaryDirectory()
        let lines = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n", omittingEmptySubsequences: false)
        try (lines[0..<10].joined(separator: "\n") + "\n").write(toFile: dir + "/a.jsonl", atomically: true, encoding: .utf8)
        try lines[10...].joined(separator: "\n").write(toFile: dir + "/b.jsonl", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", dir + "/a.jsonl", dir + "/b.jsonl"])
        #expect(result.status == 0)
        let expected = Paths.read(Paths.fixture("museum-day.records.jsonl"))
            .replacingOccurrences(of: "Tests/Fixtures/museum-day.jsonl:21", with: dir + "/b.jsonl:11")
        #expect(result.stdout == expected)
    }

    @Test func stateFileCarriesSuppressionAcrossRuns() throws {
        let dir = Paths.temporaryDirectory()
        let state = dir + "/state"
        let lines = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n", omittingEmptySubsequences: false)
        try (lines[0..<6].joined(separator: "\n") + "\n").write(toFile: dir + "/first.jsonl", atomically: true, encoding: .utf8)
        try (lines[6..<20].joined(separator: "\n") + "\n").write(toFile: dir + "/second.jsonl", atomically: true, encoding: .utf8)
        let first = try CommandRunner.run(["replay", dir + "/first.jsonl", "--state", state])
        let second = try CommandRunner.run(["replay", dir + "/second.jsonl", "--state", state])
        #expect(first.status == 0 && second.status == 0)
        let whole = Paths.read(Paths.fixture("museum-day.records.jsonl")).split(separator: "\n").filter { !$0.contains("museum-day.jsonl:21") }
        #expect((first.stdout + second.stdout).split(separator: "\n") == whole)
        // Without the state the second run would send anna's coupon again.
        let forgetful = try CommandRunner.run(["replay", dir + "/second.jsonl"])
        #expect(forgetful.stdout.split(separator: "\n").count > second.stdout.split(separator: "\n").count)
    }

    @Test func damagedStateFileStopsWithExitTwo() throws {
        let dir = Paths.temporaryDirectory()
        try "garbage\n".write(toFile: dir + "/state", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", "Tests/Fixtures/museum-day.jsonl", "--state", dir + "/state"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(dir + "/state: not a beaconrules state file"))
    }

    @Test func campaignThatDoesNotLoadStopsWithExitTwoNamingFileAndLine() throws {
        let dir = Paths.temporaryDirectory()
        try "[\n  {\"eid\": \"x\", \"type\": 1,\n   \"trigger\": 9}\n]\n".write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", "Tests/Fixtures/museum-day.jsonl", "--campaigns", dir])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(dir + "/bad.json:3:4: error: `[0].trigger`: expected 1 (enter), 2 (exit) or 3 (both), found 9"))
    }

    @Test func invalidJSONCampaignNamesLineAndColumn() throws {
        let dir = Paths.temporaryDirectory()
        try "{\"eid\": \"x\",\n \"type\": 1,,\n}".write(toFile: dir + "/broken.json", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", "--campaigns", dir + "/broken.json"], stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.contains(dir + "/broken.json:2:12: error: not valid JSON"))
    }

    @Test func syncInputInTheCorpusIsRefusedWithExitTwo() throws {
        let result = try CommandRunner.run(["replay", "--campaigns", Paths.sensorberg], stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.contains("injectSyncResponse.json:1: error: this is a Sensorberg backend sync input"))
    }

    @Test(arguments: [["replay", "--no-such-flag"], ["replay", "missing-file.jsonl"], ["replay", "--locales", "/nonexistent"], ["frobnicate"]])
    func badUsageExitsTwo(arguments: [String]) throws {
        let result = try CommandRunner.run(arguments, stdin: "")
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test func noProgressBarWhenStderrIsNotATerminal() throws {
        let result = try CommandRunner.run(["replay", "Tests/Fixtures/museum-day.jsonl"])
        #expect(!result.stderr.contains("\r"))
    }

    @Test func helpGivesThePresenceDefaultsTheEngineUses() throws {
        let help = try CommandRunner.run(["replay", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let defaults = PresenceSettings()
        #expect(help.contains("still be used (default \(defaults.maxLatenessMilliseconds / 1000))"), "\(help)")
        #expect(help.contains("confirm an exit (default \(defaults.exitTimeoutMilliseconds / 1000))"))
    }
}
