import ArgumentParser
import NIOCore
import NIOPosix
import Synchronization

/// `beaconrules-load`: drives a running `beaconrules serve` over loopback and reports what it
/// measured. Two modes: as fast as it can with pipelining (throughput), or at a fixed rate
/// (latency percentiles). Events are generated for the museum example campaigns, with ids unique
/// to the run so that they are processed, not answered from the log.
@main
struct LoadCommand: AsyncParsableCommand {
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

    func validate() throws {
        guard connections > 0, events > 0, devices > 0, rate >= 0 else {
            throw ValidationError("--connections, --events and --devices must be positive, --rate not negative")
        }
    }

    func run() async throws {
        let run = String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        let interval: Duration? = rate > 0 ? .seconds(Double(connections) / rate) : nil
        let clock = ContinuousClock()
        let start = clock.now
        let results = try await withThrowingTaskGroup(of: ConnectionResult.self) { group in
            for index in 0..<connections {
                let lines = EventLines(run: run, connection: index, devices: devices)
                group.addTask {
                    try await Self.drive(host: host, port: port, lines: lines, count: events, interval: interval)
                }
            }
            var all: [ConnectionResult] = []
            for try await result in group { all.append(result) }
            return all
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let total = results.reduce(0) { $0 + $1.replies }
        let rejected = results.reduce(0) { $0 + $1.rejected }
        let records = results.reduce(0) { $0 + $1.records }
        print("\(total) events on \(connections) connections in \(format(seconds)) s: \(Int(Double(total) / seconds)) events/s (\(records) records, \(rejected) rejected)")
        var latencies = results.flatMap(\.latencies).sorted()
        guard !latencies.isEmpty else { return }
        if latencies.count > 1 { latencies.removeFirst(min(latencies.count / 100, 100)) }  // connection warm-up
        func percentile(_ p: Double) -> String {
            format(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000)
        }
        let mode = interval == nil ? "pipelined, as fast as answered" : "at \(Int(rate)) events/s"
        print("latency (\(mode)), ms: p50 \(percentile(0.50))  p90 \(percentile(0.90))  p99 \(percentile(0.99))  max \(format(latencies.last! * 1000))")
    }

    /// One connection: a writer task sends (at a fixed pace, or all at once), the caller's task
    /// reads the replies and times each against its send.
    static func drive(host: String, port: Int, lines: EventLines, count: Int, interval: Duration?) async throws -> ConnectionResult {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        let sent = SendTimes(capacity: count)
        let clock = ContinuousClock()
        return try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var next = clock.now
                    var batch = ByteBuffer()
                    for n in 0..<count {
                        if let interval {
                            next += interval
                            try await clock.sleep(until: next)
                            sent.append(clock.now)
                            try await outbound.write(ByteBuffer(string: lines.line(n)))
                        } else {
                            batch.writeString(lines.line(n))
                            if batch.readableBytes >= 1 << 16 || n == count - 1 {
                                sent.append(clock.now, times: n + 1 - sent.count)
                                try await outbound.write(batch)
                                batch.clear()
                            }
                        }
                    }
                    outbound.finish()
                }
                var result = ConnectionResult()
                result.latencies.reserveCapacity(count)
                for try await reply in inbound.splitLines() {
                    let now = clock.now
                    let latency = now - sent[result.replies]
                    result.latencies.append(Double(latency.components.attoseconds) / 1e18 + Double(latency.components.seconds))
                    result.replies += 1
                    if reply.readableBytesView.starts(with: "{\"ok\":false".utf8) { result.rejected += 1 }
                    result.records += reply.readableBytesView.split(separator: UInt8(ascii: "{")).count - 2
                    if result.replies == count { break }
                }
                try await group.waitForAll()
                return result
            }
        }
    }
}

struct ConnectionResult: Sendable {
    var replies = 0
    var rejected = 0
    /// Counted roughly (objects opened per reply), enough to see that rules fired.
    var records = 0
    var latencies: [Double] = []
}

/// When each line was sent, shared by the writer and the reader of one connection.
final class SendTimes: Sendable {
    private let times: Mutex<[ContinuousClock.Instant]>

    init(capacity: Int) {
        var times: [ContinuousClock.Instant] = []
        times.reserveCapacity(capacity)
        self.times = Mutex(times)
    }

    var count: Int { times.withLock { $0.count } }

    func append(_ time: ContinuousClock.Instant, times count: Int = 1) {
        times.withLock { $0.append(contentsOf: repeatElement(time, count: count)) }
    }

    subscript(index: Int) -> ContinuousClock.Instant {
        times.withLock { $0[index] }
    }
}

/// Event lines for one connection: its own devices, moving between the four museum beacons.
struct EventLines: Sendable {
    let run: String
    let connection: Int
    let devices: Int

    func line(_ n: Int) -> String {
        let device = n % devices
        let step = n / devices
        let beacon = (step / 2 + device) % 4 + 1
        let type = step % 2 == 0 ? "enter" : "exit"
        // 2026-06-05T06:00Z plus 7 minutes per step: through the day's time frames.
        let time = 1_780_639_200_000 + Int64(step) * 420_000
        return "{\"id\":\"\(run)-\(connection)-\(n)\",\"device\":\"load-\(run)-\(connection)-\(device)\",\"type\":\"\(type)\","
            + "\"beacon\":\"b9407f30f5f8466eaff925556b57fe6d001000000\(beacon)\",\"time\":\(time),\"locale\":\"de-DE\"}\n"
    }
}

func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}
