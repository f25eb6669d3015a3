import Foundation
import Testing

/// Retention through the real binary: the options, and a late response refused by `replay` and
/// by `serve` with SPEC section 8's error.
@Suite("Retention, command line")
struct RetentionCommandTests {
    static func campaigns() -> String {
        let folder = Paths.temporaryDirectory()
        FileManager.default.createFile(atPath: folder + "/c1.json", contents: Data(RetentionTests.suppressed.utf8))
        return folder
    }

    static let lines = [
        RetentionTests.enter("e-1", at: 0),
        RetentionTests.response("r-1", to: "c1:d-1:e-1", at: 2 * 3_600_000),
    ]

    /// Every duration option, each with a value that is not a duration: exit 2, naming the option.
    static let badDurations = [
        ("--response-window", "7 days", "expected"), ("--answer-retention", "0s", "expected a duration above zero"),
        ("--suppression-lateness", "1 week", "expected"), ("--response-lateness", "1.5h", "expected"),
    ]

    @Test(arguments: ["replay", "serve", "http"])
    func aBadDurationIsAUsageErrorNamingTheOption(command: String) throws {
        for (option, value, expected) in Self.badDurations {
            let result = try CommandRunner.run([command, option, value])
            #expect(result.status == 2, "\(command) \(option) \(value)")
            #expect(result.stderr.contains("'\(option) <duration>': \"\(value)\" is not a duration: \(expected)"), "\(result.stderr)")
        }
    }

    /// A response within its window (2h) that comes an hour and a half after an event three hours
    /// later: with `--response-lateness 2h` its delivery is still held and it is taken; with
    /// `30m` the commit of the later event forgot the delivery, and the response is refused.
    @Test func theResponseLatenessDecidesHowFarBehindTheNewestEventAResponseIsTaken() async throws {
        let folder = Self.campaigns()
        for (lateness, taken) in [("2h", true), ("30m", false)] {
            let server = try await ServerProcess.start(["--campaigns", folder, "--response-window", "2h", "--response-lateness", lateness])
            let events = try await LineClient.exchange(port: server.port, lines: [
                RetentionTests.enter("e-1", at: 0), RetentionTests.enter("e-2", device: "d-2", at: 3 * 3_600_000),
            ])
            let response = try await LineClient.exchange(port: server.port, lines: [RetentionTests.response("r-1", to: "c1:d-1:e-1", at: 90 * 60_000)])
            await server.stop()
            #expect(events.allSatisfy { $0.contains("\"ok\":true") }, "\(events)")
            #expect(response.first?.contains("\"ok\":true") == taken, "--response-lateness \(lateness): \(response)")
        }
    }

    /// With one engine and with the devices shared out over two (`--jobs 2`).
    @Test(arguments: ["1", "2"])
    func replayRefusesAResponseAfterTheWindow(jobs: String) throws {
        let folder = Self.campaigns()
        let result = try CommandRunner.run(["replay", "--jobs", jobs, "--campaigns", folder, "--response-window", "1h"], stdin: Self.lines.joined(separator: "\n"))
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"id\":\"c1:d-1:e-1\""))
        #expect(result.stderr.contains("\"line\":2"))
        #expect(result.stderr.contains("was delivered longer ago than the response window (1h)"))
        let within = try CommandRunner.run(["replay", "--jobs", jobs, "--campaigns", folder, "--response-window", "3h"], stdin: Self.lines.joined(separator: "\n"))
        #expect(within.status == 0, "\(within.stderr)")
    }

    @Test func serveRefusesAResponseAfterTheWindow() async throws {
        let folder = Self.campaigns()
        let state = Paths.temporaryDirectory() + "/state.db"
        for arguments in [["--response-window", "1h"], ["--response-window", "1h", "--state", state]] {
            let server = try await ServerProcess.start(["--campaigns", folder] + arguments)
            let replies = try await LineClient.exchange(port: server.port, lines: Self.lines)
            await server.stop()
            #expect(replies.count == 2)
            #expect(replies.first?.contains("\"ok\":true") == true)
            #expect(replies.last?.contains("\"ok\":false,\"line\":2") == true)
            #expect(replies.last?.contains("was delivered longer ago than the response window (1h)") == true, "\(replies)")
        }
    }
}
