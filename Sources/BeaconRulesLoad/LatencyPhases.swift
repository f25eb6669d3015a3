/// Round trips by phase: every `linesPerPhase` lines in the order they were scheduled (the sender
/// deals lines to the connections in turn, so a phase is the same share of each connection's
/// lines), with p50, p99, p99.9 and the exact maximum of each, in milliseconds, and when the line
/// of the maximum was sent (seconds after the client's start).
struct LatencyPhases {
    struct Phase: Equatable {
        var lines: Int
        var p50: UInt64
        var p99: UInt64
        var p999: UInt64
        var max: UInt64
        /// When the slowest line was sent, ns after the start.
        var maxSentAt: UInt64
    }

    let phases: [Phase]
    let linesPerPhase: Int

    /// `latencies`: each connection's round trips (ns) in the order of its lines; `sent`: when each
    /// was sent (ns after the start), the same shape.
    init(_ latencies: [[UInt64]], sent: [[UInt64]], linesPerPhase: Int) {
        self.linesPerPhase = linesPerPhase
        let share = max(1, linesPerPhase / max(1, latencies.count))
        let longest = latencies.map(\.count).max() ?? 0
        var phases: [Phase] = []
        var start = 0
        while start < longest {
            var phase: [UInt64] = []
            var slowest: (latency: UInt64, sentAt: UInt64) = (0, 0)
            for (c, connection) in latencies.enumerated() where start < connection.count {
                for line in start..<min(connection.count, start + share) {
                    phase.append(connection[line])
                    if connection[line] >= slowest.latency { slowest = (connection[line], sent[c][line]) }
                }
            }
            phase.sort()
            func rank(_ p: Double) -> UInt64 { phase[min(phase.count - 1, Int(Double(phase.count) * p))] }
            phases.append(Phase(lines: phase.count, p50: rank(0.50), p99: rank(0.99), p999: rank(0.999), max: phase.last!, maxSentAt: slowest.sentAt))
            start += share
        }
        self.phases = phases
    }

    var table: String {
        var lines = ["lines  p50_ms  p99_ms  p99.9_ms  max_ms  max_sent_s"]
        var sent = 0
        for phase in phases {
            sent += phase.lines
            lines.append([String(sent), ms(phase.p50), ms(phase.p99), ms(phase.p999), ms(phase.max), format(Double(phase.maxSentAt) / 1e9)].joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }

    private func ms(_ ns: UInt64) -> String { format(Double(ns) / 1e6) }
}
