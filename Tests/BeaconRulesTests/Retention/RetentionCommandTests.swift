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

    @Test(arguments: ["replay", "serve", "http"])
    func aBadDurationIsAUsageErrorNamingTheOption(command: String) throws {
        let result = try CommandRunner.run([command, "--response-window", "7 days"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'--response-window <duration>': \"7 days\" is not a duration: expected"))
        let other = try CommandRunner.run([command, "--answer-retention", "0s"])
        #expect(other.status == 2)
        #expect(other.stderr.contains("'--answer-retention <duration>': \"0s\" is not a duration: expected a duration above zero"))
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
