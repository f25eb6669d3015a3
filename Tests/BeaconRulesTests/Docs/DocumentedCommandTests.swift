import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The README and the guides quote commands with their output; these tests run every one of them
/// with the `beaconrules` built for the tests first on `PATH`, from the repository root, so that no
/// example goes stale.
@Suite("documents: every quoted command runs as shown")
struct DocumentedCommandTests {
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Paths.repo("docs"))) ?? []
        return ["README.md", "ARCHITECTURE.md"].filter { FileManager.default.fileExists(atPath: Paths.repo($0)) }
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// Commands a document may quote that this test does not run, each with who runs it instead.
    static let runElsewhere: [(prefix: String, by: String)] = [
        ("swift test", "CI: .ci/run runs exactly this"),
        ("swift build", "every test run builds first"),
        ("export PATH=", "this test puts the built binary first on PATH itself"),
        ("bash .ci/run", "CI"),
        ("scripts/bench.sh", "a benchmark, run by hand; BenchmarkTests run its small version"),
        ("scripts/serve-benchmark.sh", "a benchmark, run by hand"),
        ("scripts/decision-floor.sh", "a benchmark, run by hand"),
        ("scripts/jobs-benchmark.sh", "a benchmark, run by hand"),
        ("scripts/output-heavy.sh", "a benchmark, run by hand"),
        ("scripts/callgrind-per-event.sh", "a benchmark, run by hand"),
        ("scripts/docs.sh", "the DocC archives, run by .ci/run after the tests (swift test holds the build folder's lock)"),
        ("scripts/soak.sh", "a benchmark, run by hand; RetentionTests run its small version in process"),
        ("scripts/serve-postgres-benchmark.sh", "a benchmark, run by hand"),
        ("beaconrules serve --state postgres://", "ServePostgresTests, against a private PostgreSQL cluster"),
        ("beaconrules state migrate", "ServePostgresTests, against a private PostgreSQL cluster"),
        ("beaconrules state copy --from /var/lib/beaconrules/state.db --to postgres://", "ServePostgresTests and AppsPostgresTests, against a private PostgreSQL cluster"),
        ("PGPASSWORD=", "ServePostgresTests run serve on PostgreSQL against a private cluster"),
    ]

    @Test("every command of the document prints what the document shows", arguments: documents)
    func everyCommandPrintsWhatItsDocumentShows(document: String) throws {
        let commands = DocumentedCommand.all(in: document, text: Paths.read(Paths.repo(document)))
        let scratch = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var server: (block: Int, process: DocumentedServer)?
        func stopServer() {
            guard let running = server else { return }
            #expect(running.process.stop() == 0, "\(document): the server of block \(running.block) did not exit 0 on SIGTERM")
            server = nil
        }
        defer { stopServer() }
        for command in commands {
            if let running = server, running.block != command.block { stopServer() }
            if let elsewhere = Self.runElsewhere.first(where: { command.text.hasPrefix($0.prefix) }) {
                if elsewhere.prefix.hasPrefix("scripts/") {
                    #expect(FileManager.default.isExecutableFile(atPath: Paths.repo(elsewhere.prefix)), "\(command): no such script")
                }
                continue
            }
            var text = Self.runnable(command.text, scratch: scratch)
            var shown = command.shownOutput?.map { $0.replacingOccurrences(of: "/tmp/", with: scratch + "/") }
            if let running = server {
                if text == "kill %1" {
                    stopServer()
                    continue
                }
                for documented in ["7700", "7780", "7790"] {
                    text = text.replacingOccurrences(of: documented, with: String(running.process.port))
                    shown = shown?.map { $0.replacingOccurrences(of: documented, with: String(running.process.port)) }
                }
                if let metrics = running.process.metrics {
                    text = text.replacingOccurrences(of: String(metrics.documented), with: String(metrics.port))
                }
            }
            if Self.isServer(text) {
                let background = text.hasSuffix(" &")
                let started = try DocumentedServer.start(background ? String(text.dropLast(2)) : text)
                guard let started else {
                    Issue.record("\(command): did not print `listening on` within 30 s")
                    continue
                }
                if let shown {
                    let defaultPort = text.hasPrefix("beaconrules http") ? ":7780" : text.hasPrefix("beaconrules console") ? ":7790" : ":7700"
                    var actual = [started.listeningLine.replacingOccurrences(of: ":\(started.port)", with: defaultPort)]
                    if let metrics = started.metrics {
                        actual.append(metrics.line.replacingOccurrences(of: ":\(metrics.port)", with: ":\(metrics.documented)"))
                    }
                    #expect(DocumentedCommand.matches(shown: shown, actual: actual), "\(command): printed \(actual)")
                }
                if background && command.kind == .console {
                    server = (command.block, started)
                } else {
                    #expect(started.stop() == 0, "\(command): did not exit 0 on SIGTERM")
                }
                continue
            }
            let (status, output) = try Self.run(text)
            if let shown {
                let actual = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                #expect(DocumentedCommand.matches(shown: shown, actual: actual),
                        "\(command)\n--- the document shows:\n\(shown.joined(separator: "\n"))\n--- it printed (exit \(status)):\n\(output)")
            } else {
                #expect(status == 0, "\(command): exit \(status)\n\(output)")
            }
        }
    }

    @Test("the README is a front door: short, with links that lead somewhere")
    func readmeIsShortAndItsLinksExist() {
        let readme = Paths.read(Paths.repo("README.md"))
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 320)
        for document in Self.documents {
            for target in Self.relativeLinks(in: Paths.read(Paths.repo(document))) {
                let base = URL(fileURLWithPath: Paths.repo(document)).deletingLastPathComponent()
                let path = base.appendingPathComponent(target).standardizedFileURL.path
                #expect(FileManager.default.fileExists(atPath: path), "\(document) links to \(target), which does not exist")
            }
        }
    }

    @Test("the campaign the README shows is the shipped one, so its example records are that campaign's")
    func readmeCampaignIsTheShippedOne() throws {
        let readme = Paths.read(Paths.repo("README.md"))
        let start = try #require(readme.range(of: "```json\n{\n  \"eid\": \"museum-goodbye\""))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let shown = readme[start.lowerBound..<end.lowerBound].dropFirst("```json".count).filter { !$0.isWhitespace }
        let shipped = Paths.read(Paths.repo("Campaigns/museum/01-visit.json")).filter { !$0.isWhitespace }
        #expect(shown.count > 100 && shipped.contains(shown))
    }

    @Test("every guide the command line's help names exists")
    func guidesNamedInHelpExist() throws {
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Paths.repo("Sources/beaconrules"))
        for file in sources where file.hasSuffix(".swift") {
            let text = Paths.read(Paths.repo("Sources/beaconrules/" + file))
            for match in text.matches(of: /docs\/[A-Za-z0-9._-]+\.md/) {
                #expect(FileManager.default.fileExists(atPath: Paths.repo(String(match.output))),
                        "Sources/beaconrules/\(file) names \(match.output), which does not exist")
            }
        }
    }

    /// The command as a shell runs it here: `swift run beaconrules` is the built binary, `/tmp/`
    /// the test's own folder.
    static func runnable(_ text: String, scratch: String) -> String {
        var text = text
        for prefix in ["swift run -c release beaconrules", "swift run beaconrules"] where text.hasPrefix(prefix) {
            text = "beaconrules" + text.dropFirst(prefix.count)
        }
        return text.replacingOccurrences(of: "/tmp/", with: scratch + "/")
    }

    static func isServer(_ text: String) -> Bool {
        text.hasPrefix("beaconrules serve") || text.hasPrefix("beaconrules http") || text.hasPrefix("beaconrules console")
    }

    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let binaries = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// Runs `text` with bash from the repository root, stdout and stderr into one file, as a
    /// terminal would show them.
    static func run(_ text: String) throws -> (Int32, String) {
        let scratch = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let outPath = scratch + "/output"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", text]
        process.environment = environment
        process.currentDirectoryURL = Paths.root
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        return (process.terminationStatus, Paths.read(outPath))
    }

    /// Relative link targets of a Markdown text (`[text](path)`), without anchors; web addresses
    /// and pure anchors left out.
    static func relativeLinks(in text: String) -> [String] {
        text.matches(of: /\]\(([^)\s]+)\)/).compactMap { match in
            let target = String(match.output.1)
            if target.hasPrefix("http") || target.hasPrefix("#") || target.hasPrefix("mailto:") { return nil }
            return target.split(separator: "#").first.map(String.init)
        }
    }
}

/// A `serve` or `http` command of a document, started by bash on a free port.
final class DocumentedServer {
    let process: Process
    let port: Int
    let listeningLine: String
    /// With `--metrics-port N`: its `metrics on HOST:PORT` line, the port bound and N.
    let metrics: (line: String, port: Int, documented: Int)?
    private let scratch: String

    private init(process: Process, port: Int, listeningLine: String, metrics: (line: String, port: Int, documented: Int)?, scratch: String) {
        self.process = process
        self.port = port
        self.listeningLine = listeningLine
        self.metrics = metrics
        self.scratch = scratch
    }

    /// Starts `text` with `--port 0` and waits, at most 30 s, for its `listening on HOST:PORT` line.
    /// A `--metrics-port N` is started as `--metrics-port 0`, and its `metrics on` line waited for too.
    static func start(_ text: String) throws -> DocumentedServer? {
        var text = text
        let documentedMetrics = text.firstMatch(of: /--metrics-port (\d+)/).flatMap { Int($0.output.1) }
        if let documentedMetrics { text = text.replacingOccurrences(of: "--metrics-port \(documentedMetrics)", with: "--metrics-port 0") }
        let scratch = Paths.temporaryDirectory()
        let outPath = scratch + "/output"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec " + text + " --port 0"]
        process.environment = DocumentedCommandTests.environment
        process.currentDirectoryURL = Paths.root
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        OrphanGuard.guardProcess(process.processIdentifier)
        for _ in 0..<1500 where process.isRunning {
            let printed = Paths.read(outPath).split(separator: "\n")
            func port(_ prefix: String) -> (String, Int)? {
                guard let line = printed.first(where: { $0.hasPrefix(prefix) }),
                      let port = line.split(separator: ":").last.flatMap({ Int($0) }) else { return nil }
                return (String(line), port)
            }
            if let (line, listening) = port("listening on ") {
                if let documentedMetrics {
                    guard let (metricsLine, metricsPort) = port("metrics on ") else {
                        usleep(20_000)
                        continue
                    }
                    return DocumentedServer(process: process, port: listening, listeningLine: line,
                                            metrics: (metricsLine, metricsPort, documentedMetrics), scratch: scratch)
                }
                return DocumentedServer(process: process, port: listening, listeningLine: line, metrics: nil, scratch: scratch)
            }
            usleep(20_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: scratch)
        return nil
    }

    /// SIGTERM, then the exit status; nil (and SIGKILL) after 30 s without one.
    func stop() -> Int32? {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<1500 where process.isRunning { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}
