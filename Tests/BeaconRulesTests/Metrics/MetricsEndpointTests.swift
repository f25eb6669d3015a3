import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--metrics-port` on the real binary over loopback: `/metrics` scraped with curl, its counters
/// compared with what was sent; `/health` and `/ready`.
@Suite("metrics port: /metrics, /health and /ready of serve and http")
struct MetricsEndpointTests {
    let trace = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
    let golden = Paths.read(Paths.fixture("museum-day.records.jsonl")).split(separator: "\n").map(String.init)

    var silent: Int { golden.filter { $0.hasPrefix(#"{"kind":"silent""#) }.count }

    @Test(arguments: [false, true])
    func serveCountsWhatWasSent(withState: Bool) async throws {
        let state = Paths.temporaryDirectory() + "/metrics.state"
        try await ServerProcess.with(["--metrics-port", "0"] + (withState ? ["--state", state] : [])) { server in
            let port = try #require(await server.printedPort("metrics on"))
            #expect(try Self.get(port, "health") == (200, "ok\n"))
            #expect(try Self.get(port, "ready") == (200, "ready\n"))

            let replies = try await LineClient.exchange(port: server.port, lines: trace + ["not json", ""])
            #expect(replies.count == trace.count + 2)
            // The sizes are sampled at most once a second, after a commit: one more commit after that.
            try await Task.sleep(for: .milliseconds(1100))
            _ = try await LineClient.exchange(port: server.port, lines: [trace[0]])

            let metrics = try Self.scrape(port)
            #expect(metrics["beaconrules_events_total"] == Double(trace.count + 1))
            #expect(metrics[#"beaconrules_lines_rejected_total{reason="invalid_line"}"#] == 2)
            // The resent first event is answered with its records again: they are sent twice.
            let first = golden.filter { $0.contains(#":anna:ev-01","#) }
            let firstSilent = first.filter { $0.hasPrefix(#"{"kind":"silent""#) }.count
            #expect(metrics[#"beaconrules_records_total{kind="silent"}"#] == Double(silent + firstSilent))
            #expect(metrics[#"beaconrules_records_total{kind="notification"}"#] == Double(golden.count - silent + first.count - firstSilent))
            #expect(metrics["beaconrules_answers_held"] == Double(trace.count))
            #expect((metrics["beaconrules_deliveries_held"] ?? 0) > 0)
            #expect((metrics["beaconrules_commit_seconds_count"] ?? 0) >= 2)
            #expect(metrics["beaconrules_batch_lines_sum"] == Double(trace.count + 3))
            #expect(metrics["beaconrules_connections_open"] != nil)
            if withState {
                #expect((metrics["beaconrules_state_file_bytes"] ?? 0) > 0)
            } else {
                #expect(metrics["beaconrules_state_file_bytes"] == 0)
            }

            server.signal(SIGHUP)
            #expect(await server.waitForLog("reloaded"))
            #expect(try Self.scrape(port)[#"beaconrules_reloads_total{result="ok"}"#] == 1)
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }

    @Test func httpCountsUnderTheSameNames() async throws {
        try await ServerProcess.with(["--metrics-port", "0"], command: "http") { server in
            let port = try #require(await server.printedPort("metrics on"))
            #expect(try Self.get(port, "ready") == (200, "ready\n"))
            let body = Paths.temporaryDirectory() + "/trace.ndjson"
            try (trace + ["not json"]).joined(separator: "\n").write(toFile: body, atomically: true, encoding: .utf8)
            let answer = try HTTPFrontTests.curl(["-sS", "-H", "Content-Type: application/x-ndjson", "--data-binary", "@" + body, "127.0.0.1:\(server.port)/events"])
            #expect(answer.split(separator: "\n").count == trace.count + 1)
            let metrics = try Self.scrape(port)
            #expect(metrics["beaconrules_events_total"] == Double(trace.count))
            #expect(metrics[#"beaconrules_lines_rejected_total{reason="invalid_line"}"#] == 1)
            #expect(metrics[#"beaconrules_records_total{kind="silent"}"#] == Double(silent))
            #expect(metrics[#"beaconrules_records_total{kind="notification"}"#] == Double(golden.count - silent))
            #expect(metrics["beaconrules_answers_held"] == Double(trace.count))
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }

    @Test func aMetricsHostThatIsNotLoopbackNeedsAllowRemote() throws {
        let refused = try CommandRunner.run(["serve", "--metrics-port", "0", "--metrics-host", "0.0.0.0"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--allow-remote"))
    }

    /// The status and body of `GET /path`.
    static func get(_ port: Int, _ path: String) throws -> (Int, String) {
        let output = try HTTPFrontTests.curl(["-sS", "-w", "\n%{http_code}", "127.0.0.1:\(port)/\(path)"])
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        return (status, String(output.dropLast(String(status).count + 1)))
    }

    /// `/metrics` as sample name (with its labels) to value; comments left out.
    static func scrape(_ port: Int) throws -> [String: Double] {
        let (status, text) = try get(port, "metrics")
        #expect(status == 200)
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
