import ArgumentParser

/// `beaconrules-load`: drives a running `beaconrules serve` over loopback and reports what it
/// measured. Two modes: as fast as it can with pipelining (throughput), or at a fixed rate
/// (latency percentiles). Events are generated for the museum example campaigns, with ids unique
/// to the run so that they are processed, not answered from the log.
///
/// The client is built to cost little, because on a small machine it shares the cores with the
/// server it measures: every request is rendered before the clock starts, one thread drives all
/// connections with non-blocking sockets, and a reply is matched to its request by position (the
/// protocol answers in order), not by parsing it. It prints its own CPU time so that its share can
/// be told apart from the server's.
@main
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beaconrules-load",
        abstract: "Measure a running `beaconrules serve`: events/s with pipelining, or latency at a fixed rate.")

    @Option(help: "The server's host.") var host = "127.0.0.1"
    @Option(help: "The server's port.") var port = 7700
    @Option(help: "Connections, each with its own devices.") var connections = 4
    @Option(help: "Events per connection.") var events = 50_000
    @Option(help: "Devices per connection.") var devices = 200
    @Option(help: "Total events per second across all connections; 0 sends as fast as the server answers (pipelined).")
    var rate = 0.0
    @Flag(help: "Send raw sightings (SPEC section 7), each stamped with the wall clock as it is sent, instead of enter and exit events.")
    var sightings = false
    @Option(help: ArgumentHelp("Also print the latency of every N lines in the order sent (all connections together).", valueName: "N"))
    var phase: Int?

    func validate() throws {
        guard connections > 0, events > 0, devices > 0, rate >= 0 else {
            throw ValidationError("--connections, --events and --devices must be positive, --rate not negative")
        }
        if let phase, phase < connections {
            throw ValidationError("--phase: expected at least one line per connection (\(connections)), found \(phase)")
        }
    }

    func run() throws {
        let run = String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        let requests = (0..<connections).map { connection in
            sightings
                ? SightingLines(run: run, connection: connection, devices: devices).render(count: events)
                : EventLines(run: run, connection: connection, devices: devices).render(count: events)
        }
        let driver = LoadDriver(host: host, port: port, rate: rate > 0 ? rate : nil)
        let outcome: LoadDriver.Outcome
        do { outcome = try driver.run(requests: requests) } catch {
            throw ValidationError(error.description)
        }
        print(Self.report(outcome, connections: connections, rate: rate))
        if let phase {
            print("by phase (the clock started at \(format(Double(outcome.start) / 1e9)) s of CLOCK_MONOTONIC):")
            print(LatencyPhases(outcome.latencies, sent: outcome.sent, linesPerPhase: phase).table)
            print("max by connection, ms: " + outcome.latencies.map { format(Double($0.max() ?? 0) / 1e6) }.joined(separator: "  "))
        }
    }

    static func report(_ outcome: LoadDriver.Outcome, connections: Int, rate: Double) -> String {
        let perSecond = Int(Double(outcome.replies) / outcome.seconds)
        let recordsPerReply = outcome.sampledReplies > 0 ? Double(outcome.sampledRecords) / Double(outcome.sampledReplies) : 0
        var lines = [
            "\(outcome.replies) events on \(connections) connections in \(format(outcome.seconds)) s: \(perSecond) events/s "
                + "(\(outcome.rejected) rejected, \(format(recordsPerReply)) records per reply, "
                + "\(format(Double(outcome.receivedBytes) / outcome.seconds / 1e6)) MB/s of replies)",
            "client CPU \(format(outcome.clientCPU)) s (\(format(outcome.clientCPU / outcome.seconds * 100))% of a core)",
        ]
        var latencies = outcome.latencies.flatMap { $0 }.sorted()
        if !latencies.isEmpty {
            if latencies.count > 1 { latencies.removeFirst(min(latencies.count / 100, 100)) }  // connection warm-up
            func percentile(_ p: Double) -> String {
                format(Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6)
            }
            let mode = rate > 0 ? "at \(Int(rate)) events/s" : "pipelined, as fast as answered"
            lines.append("latency (\(mode)), ms: p50 \(percentile(0.50))  p90 \(percentile(0.90))  p99 \(percentile(0.99))  max \(format(Double(latencies.last!) / 1e6))")
            if rate > 0 { lines.append("sends at most \(format(Double(outcome.worstSendLag) / 1e6)) ms behind schedule") }
        }
        return lines.joined(separator: "\n")
    }
}

func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}
