@testable import BeaconRulesReplay
@testable import beaconrules
import BenchmarkWorkload
import Foundation
import Testing

/// `replay --jobs N` shares the events out by device over N engines: whatever N, stdout, stderr
/// and the exit status are byte for byte those of `--jobs 1` (the real binary, on files and pipes).
@Suite("replay --jobs")
struct ReplayJobsTests {
    static let jobs = [2, 3, 7]

    /// Runs replay with `--jobs 1` and with each of `jobs`, and expects the same results.
    static func expectSameWithAnyJobs(_ arguments: [String], stdin: String? = nil, throughPipe: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let one = try CommandRunner.run(["replay"] + arguments + ["--jobs", "1"], stdin: stdin, throughPipe: throughPipe)
        for n in jobs {
            let many = try CommandRunner.run(["replay"] + arguments + ["--jobs", "\(n)"], stdin: stdin, throughPipe: throughPipe)
            #expect(many.status == one.status, "--jobs \(n)", sourceLocation: sourceLocation)
            #expect(many.stderr == one.stderr, "--jobs \(n)", sourceLocation: sourceLocation)
            if many.stdout != one.stdout {
                let a = one.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let b = many.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
                Issue.record("--jobs \(n): stdout differs at record \(first + 1) (\(b.count) lines against \(a.count))", sourceLocation: sourceLocation)
            }
        }
        return one
    }

    static func write(_ text: String, _ name: String, in directory: String) -> String {
        let path = directory + "/" + name
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test func museumDayGivesTheGoldenRecordsWithAnyJobs() throws {
        let one = try Self.expectSameWithAnyJobs(["Tests/Fixtures/museum-day.jsonl"])
        #expect(one.status == 0)
        #expect(one.stdout == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }

    @Test func brokenLinesAreReportedInTheirPlaceWithAnyJobs() throws {
        let one = try Self.expectSameWithAnyJobs(["Tests/Fixtures/museum-broken.jsonl"])
        #expect(one.status == 1)
        #expect(one.stdout == Paths.read(Paths.fixture("museum-broken.records.jsonl")))
        #expect(!one.stderr.isEmpty)
    }

    /// Many devices over several blocks of lines, with responses, bad lines, blank lines, lines in
    /// other layouts (read by the general parser) and a line too long, through a file and a pipe.
    @Test func mixedStreamIsTheSameWithAnyJobs() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var lines = MuseumTrace.interleave(MuseumTrace.devices(90, events: 150))
        let day = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        let responses = Paths.read(Paths.fixture("museum-day-responses.jsonl")).split(separator: "\n").map(String.init)
        let broken = Paths.read(Paths.fixture("museum-broken.jsonl")).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var random = SplitMix64(seed: 7)
        for (k, line) in (day + responses + broken).enumerated() {
            // In order among themselves (responses after the records they answer), spread out.
            let at = min(lines.count, (k + 1) * lines.count / (day.count + responses.count + broken.count + 1) + Int(random.next() % 3))
            lines.insert(line, at: at)
        }
        lines.insert(#"{"device":"t-dev-3","id":"other-order","time":"2026-06-05T09:00:00Z","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001"}"#, at: 500)
        lines.insert(#"{ "id": "spaced", "device": "t-dev-4", "type": "enter", "beacon": {"uuid": "b9407f30-f5f8-466e-aff9-25556b57fe6d", "major": 1, "minor": 1}, "time": 1780650000000 }"#, at: 4_000)
        lines.insert(#"{"id":"escaped\"id","device":"t-dev-5","type":"exit","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000002","time":"2026-06-05T09:30:00Z"}"#, at: 4_100)
        lines.insert(#"{"id":"no-device","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":1780650000000}"#, at: 4_300)
        // Responses about another device's record (delivered, or never), from several devices
        // (so that some are another shard's), after the records are out.
        for n in 0..<12 {
            lines.append(#"{"id":"other-\#(n)","type":"response","device":"t-dev-\#(n)","notification":"museum-welcome:anna:ev-01","action":"present","time":"2026-06-07T10:00:02+02:00"}"#)
            lines.append(#"{"id":"none-\#(n)","type":"response","device":"t-dev-\#(n)","notification":"museum-welcome:nobody:ev-01","action":"present","time":"2026-06-07T10:00:02+02:00"}"#)
            lines.append(#"{"id":"colons-\#(n)","type":"response","device":"t-dev-\#(n)","notification":"a:b:c:d:e","action":"present","time":"2026-06-07T10:00:02+02:00"}"#)
        }
        lines.insert("", at: 6_000)
        lines.insert("   ", at: 6_001)
        lines.insert(String(repeating: "x", count: (1 << 24) + 10), at: 8_000)
        let trace = Self.write(lines.joined(separator: "\n") + "\n", "mixed.jsonl", in: directory)
        #expect(lines.count > 3 * 4096, "several blocks of lines")
        let one = try Self.expectSameWithAnyJobs([trace])
        #expect(one.status == 1)
        #expect(one.stdout.contains(#""kind":"followUp""#), "the responses were taken")
        #expect(one.stderr.contains("line longer than"))
        #expect(one.stderr.contains("was not delivered to device"))
        // Through a pipe (lines without an id are known as stdin:LINE).
        _ = try Self.expectSameWithAnyJobs([], stdin: Paths.read(trace), throughPipe: true)
        // Several files, in order, as one stream of devices.
        _ = try Self.expectSameWithAnyJobs([trace, "Tests/Fixtures/museum-day.jsonl", trace])
    }

    /// The benchmark's workload, small (several thousand devices over many blocks): every
    /// record the same, in the same order, in both formats and without the response ledger.
    @Test func benchmarkWorkloadIsTheSameWithAnyJobs() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spec = WorkloadSpec(campaigns: 400, uuids: 8, events: 30_000, devices: 3_000)
        var events: [UInt8] = []
        spec.generateEvents { events += $0 }
        let trace = Self.write(String(decoding: events, as: UTF8.self), "events.jsonl", in: directory)
        let campaigns = Self.write(String(decoding: spec.campaignsJSON(), as: UTF8.self), "campaigns.json", in: directory)
        let one = try Self.expectSameWithAnyJobs([trace, "--campaigns", campaigns])
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count > 10_000)
        _ = try Self.expectSameWithAnyJobs([trace, "--campaigns", campaigns, "--format", "apns"])
        _ = try Self.expectSameWithAnyJobs([trace, "--campaigns", campaigns, "--no-responses"])
    }

    /// The Sensorberg corpus's layouts as the campaigns, and a trace over every beacon they name.
    @Test func sensorbergCorpusTracesAreTheSameWithAnyJobs() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = SensorbergCorpusTests.layouts.map { Paths.sensorberg + "/" + $0 }
        var beacons = Set<String>()
        let pid = try Regex("[0-9a-fA-F]{32}[0-9]{10}")
        for file in files {
            for match in Paths.read(file).matches(of: pid) { beacons.insert(String(match.output[0].substring!).lowercased()) }
        }
        try #require(beacons.count > 3, "the corpus names too few beacons to draw a trace from")
        var random = SplitMix64(seed: 11)
        var lines: [String] = []
        let sorted = beacons.sorted()
        var time: Int64 = 1_462_888_800_000  // 2016-05-10T14:00:00Z
        for n in 0..<6_000 {
            time += Int64(random.next() % 20) * 15_000
            let device = "s-\(random.next() % 97)"
            let beacon = sorted[Int(random.next() % UInt64(sorted.count))]
            let type = random.next() % 2 == 0 ? "enter" : "exit"
            lines.append(#"{"id":"s\#(n)","device":"\#(device)","type":"\#(type)","beacon":"\#(beacon)","time":\#(time),"locale":"de-DE"}"#)
        }
        let trace = Self.write(lines.joined(separator: "\n") + "\n", "corpus.jsonl", in: directory)
        let one = try Self.expectSameWithAnyJobs([trace] + files.flatMap { ["--campaigns", $0] })
        #expect(one.status == 0)
        #expect(one.stdout.split(separator: "\n").count > 100)
    }

    /// `--state` runs with one job (one writer of the file): a state written with `--jobs 2`
    /// answers a resend, and takes responses, exactly as one written with `--jobs 1`.
    @Test func stateWrittenWithJobsAnswersAsOneJobs() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = Self.write(MuseumTrace.interleave(MuseumTrace.devices(40, events: 60)).joined(separator: "\n") + "\n", "trace.jsonl", in: directory)
        var outputs: [[String]] = []
        for jobs in ["1", "2"] {
            let state = directory + "/state-\(jobs).db"
            let first = try CommandRunner.run(["replay", "--state", state, "--jobs", jobs, trace, "Tests/Fixtures/museum-day.jsonl"])
            let resent = try CommandRunner.run(["replay", "--state", state, "--jobs", jobs, trace, "Tests/Fixtures/museum-day.jsonl"])
            let responses = try CommandRunner.run(["replay", "--state", state, "--jobs", jobs, "Tests/Fixtures/museum-day-responses.jsonl"])
            #expect(first.status == 0 && resent.status == 0 && responses.status == 0)
            #expect(resent.stdout == first.stdout, "a resend is answered from the state")
            outputs.append([first.stdout, resent.stdout, responses.stdout, responses.stderr])
        }
        #expect(outputs[0] == outputs[1])
    }

    /// The presence layer's clock spans devices: with it, replay takes one job, and gives what
    /// one job gives; sightings in a file hand the rest of the input to one engine; in a pipe
    /// given `--jobs`, each is refused with the way out.
    @Test func presenceInputIsReplayedWithOneJob() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.expectSameWithAnyJobs(["--presence", "Tests/Fixtures/museum-day.jsonl"])
        let beacon = MuseumTrace.beacons[0]
        var lines: [String] = []
        for second in stride(from: 0, to: 600, by: 5) {
            for device in ["p-1", "p-2", "p-3"] {
                lines.append(#"{"type":"sighting","device":"\#(device)","beacon":"\#(beacon)","rssi":-60,"time":\#(1_780_650_000_000 + Int64(second) * 1000)}"#)
            }
        }
        let day = Paths.read(Paths.fixture("museum-day.jsonl"))
        let trace = Self.write(day + lines.joined(separator: "\n") + "\n", "sightings.jsonl", in: directory)
        let one = try Self.expectSameWithAnyJobs([trace])
        #expect(one.stderr.isEmpty)
        let piped = try CommandRunner.run(["replay"], stdin: Paths.read(trace), throughPipe: true)
        let pipedOne = try CommandRunner.run(["replay", "--jobs", "1"], stdin: Paths.read(trace), throughPipe: true)
        #expect(piped.stdout == pipedOne.stdout, "a pipe is read with one job unless --jobs is given")
        #expect(piped.stderr.isEmpty)
        let refused = try CommandRunner.run(["replay", "--jobs", "2"], stdin: Paths.read(trace), throughPipe: true)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("a sighting, but replay runs with --jobs 2"))
        #expect(refused.stderr.contains("--jobs 1"))
    }

    /// Files are not searched for sightings ahead: the shards stop at the first one, and one
    /// engine goes on from that line, having applied the lines before it again without writing
    /// them. Sightings that start late (after several blocks, a refused line and responses
    /// before them), in the second file, or on stdin from a file, give what one job gives.
    @Test func sightingsThatStartLateGiveWhatOneJobGives() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = MuseumTrace.interleave(MuseumTrace.devices(60, events: 150, prefix: "late"))
        var after: [String] = []
        var time: Int64 = 1_780_900_000_000
        for round in 0..<200 {
            time += 5_000
            let device = "late-dev-\(round % 7)"
            let beacon = MuseumTrace.beacons[round / 50]
            after.append(#"{"type":"sighting","device":"\#(device)","beacon":"\#(beacon)","rssi":-60,"time":\#(time)}"#)
            after.append(#"{"id":"after-\#(round)","device":"late-dev-\#(round % 60)","type":"enter","beacon":"\#(beacon)","time":\#(time + 1)}"#)
        }
        after.append(#"{"id":"broken after","device":"late-dev-1","type":"enter"}"#)
        let plain = before.joined(separator: "\n") + "\n"
        let text = plain + #"{"id":"broken before","device":"late-dev-2"}"# + "\n" + after.joined(separator: "\n") + "\n"
        let trace = Self.write(text, "late.jsonl", in: directory)
        let one = try Self.expectSameWithAnyJobs([trace])
        #expect(one.status == 1)
        #expect(one.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 2, "both refused lines, once each")
        #expect(one.stdout.utf8.count > plain.utf8.count / 4, "records on both sides of the first sighting")
        let firstFile = Self.write(plain, "first.jsonl", in: directory)
        let secondFile = Self.write(after.joined(separator: "\n") + "\n", "second.jsonl", in: directory)
        _ = try Self.expectSameWithAnyJobs([firstFile, secondFile])
        _ = try Self.expectSameWithAnyJobs([], stdin: text)
    }

    /// A line that names its device twice (a JSON object with a duplicate key: the last one
    /// counts) is routed by the first: when the two go to different shards, it is refused.
    @Test func aDeviceNamedTwiceIsRefusedWhenItsShardsDiffer() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = DeviceRouter(shards: 2)
        let other = (0..<50).map { "t-dev-\($0)" }.first { router.shard($0) != router.shard("t-dev-0") }!
        let line = #"{"id":"twice","device":"t-dev-0","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":1780650000000,"device":"\#(other)"}"#
        let trace = Self.write(line + "\n", "twice.jsonl", in: directory)
        let result = try CommandRunner.run(["replay", "--jobs", "2", trace])
        #expect(result.status == 1)
        #expect(result.stderr.contains("names its device twice"))
        #expect(try CommandRunner.run(["replay", "--jobs", "1", trace]).status == 0)
    }

    /// The device of a line in the usual layout is read in place; any other line is left to the
    /// general parse.
    @Test func theUsualLayoutsDeviceIsReadInPlace() {
        func device(_ line: String) -> String? {
            var line = line
            return line.withUTF8 { bytes in
                DeviceRouter.usualDevice(bytes).map { device in
                    // The hash taken while reading is the device's own, for any number of shards.
                    for shards in [2, 3, 7] {
                        let router = DeviceRouter(shards: shards)
                        #expect(router.usualShard(bytes) == router.shard(device), "\(shards) shards")
                    }
                    return String(decoding: device, as: UTF8.self)
                }
            }
        }
        #expect(device(#"{"id":"e-1","device":"dev-42","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T09:00:00Z"}"#) == "dev-42")
        #expect(device(#"{"id":"e-1","device":"","type":"exit"}"#) == "")
        #expect(device(#"{"id":"e-1","device":"dev-42","type":"response","notification":"x:dev-42:e-0"}"#) == nil)
        #expect(device(#"{"id":"e-1","device":"dev-42","type":"sighting"}"#) == nil)
        #expect(device(#"{"id":"e\"1","device":"dev-42","type":"enter"}"#) == nil)
        #expect(device(#"{"id":"e-1","device":"dev\u0034","type":"enter"}"#) == nil)
        #expect(device(#"{"device":"dev-42","id":"e-1","type":"enter"}"#) == nil)
        #expect(device(#"{ "id":"e-1","device":"dev-42","type":"enter"}"#) == nil)
        #expect(device(#"{"id":"e-1","device":"dev-42"#) == nil)
        // Devices read eight bytes at a time: a quote, an escape or a control byte in any place.
        let long = "a-much-longer-device-id-of-33-byt"
        #expect(device(#"{"id":"e-1","device":""# + long + #"","type":"enter"}"#) == long)
        #expect(device(#"{"id":"e-1","device":"ünïcödé-dévîcé-ïd","type":"enter"}"#) == "ünïcödé-dévîcé-ïd")
        for k in [0, 7, 8, 9, 15, 16, 23] {
            let head = String(long.prefix(k))
            #expect(device(#"{"id":"e-1","device":""# + head + #"\u0034","type":"enter"}"#) == nil, "escape after \(k)")
            #expect(device(#"{"id":"e-1","device":""# + head + "\t" + #"","type":"enter"}"#) == nil, "tab after \(k)")
            #expect(device(#"{"id":"e-1","device":""# + head + #"","type":"enter"}"#) == head, "quote after \(k)")
            #expect(device(#"{"id":"e-1","device":""# + head + #"é","type":"exit"}"#) == head + "é", "non-ASCII after \(k)")
        }
    }

    /// Devices spread over the shards: ids that differ in one character are not kept together.
    @Test(arguments: [2, 3, 7])
    func devicesSpreadEvenlyOverTheShards(shards: Int) {
        let router = DeviceRouter(shards: shards)
        for name in ["t-dev-", "dev-", "a-much-longer-device-prefix-"] {
            var counts = [Int](repeating: 0, count: shards)
            for n in 0..<7_000 { counts[router.shard(name + String(n))] += 1 }
            let even = 7_000 / shards
            #expect(counts.allSatisfy { abs($0 - even) < even / 10 }, "\(name): \(counts)")
        }
    }

    @Test(arguments: ["0", "-1", "65", "many"])
    func jobsOutOfRangeIsBadUsage(jobs: String) throws {
        let result = try CommandRunner.run(["replay", "--jobs", jobs, "Tests/Fixtures/museum-day.jsonl"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--jobs"))
        #expect(result.stdout.isEmpty)
    }

    /// Stdout closed early: replay stops with exit 1 and says why, whatever the jobs.
    @Test func closedStdoutStopsEveryJob() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = Self.write(MuseumTrace.interleave(MuseumTrace.devices(200, events: 100)).joined(separator: "\n") + "\n", "trace.jsonl", in: directory)
        try CommandRunner.shell("'\(Paths.binary)' replay --jobs 3 '\(trace)' 2>'\(directory)/err' | head -c 1000 >/dev/null")
        #expect(Paths.read(directory + "/err").contains("stdout was closed"))
    }
}
