import Foundation
import NIOCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `serve` with its connections spread over every event loop (framing, parsing and reply writing
/// on each connection's own loop) and one owner of the engine: many connections at once, over
/// loopback against the real binary, get what one connection alone gets.
@Suite("serve: event loops")
struct ServeLoopsTests {
    /// Each connection's own devices, interleaved: `count` connections' lines.
    private static func traces(_ count: Int, devices: Int, events: Int, prefix: String) -> [[String]] {
        (0..<count).map { c in
            MuseumTrace.interleave(MuseumTrace.devices(devices, events: events, prefix: "\(prefix)\(c)", seed: UInt64(42 + c)))
        }
    }

    /// Every connection's exchange at once.
    private static func exchangeAll(port: Int, _ traces: [[String]]) async throws -> [[String]] {
        try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (index, lines) in traces.enumerated() {
                group.addTask { (index, try await LineClient.exchange(port: port, lines: lines)) }
            }
            var replies = [[String]](repeating: [], count: traces.count)
            for try await (index, lines) in group { replies[index] = lines }
            return replies
        }
    }

    /// In memory with the engine on an event loop (the default) or on a thread of its own, and
    /// with a state file.
    @Test(arguments: ["memory", "engine-thread", "state"])
    func manyConnectionsAtOnceGetTheRepliesReplayGives(mode: String) async throws {
        let directory = Paths.temporaryDirectory()
        let traces = Self.traces(8, devices: 5, events: 60, prefix: "loops-\(mode)-")
        let oracle = try ReplayOracle(lines: traces.flatMap { $0 }, directory: directory)
        let arguments = switch mode {
        case "state": ["--state", directory + "/serve.db"]
        case "engine-thread": ["--engine-thread"]
        default: [String]()
        }
        let server = try await ServerProcess.start(arguments)
        let replies = try await Self.exchangeAll(port: server.port, traces)
        await server.stop()
        for (lines, answered) in zip(traces, replies) {
            let expected = try lines.map { try #require(oracle.replies[try eventID($0)]) }
            #expect(answered == expected)
        }
        #expect(replies.joined().contains { $0.contains("\"kind\":\"notification\"") })
    }

    @Test func oneConnectionsBadAndOverlongLinesAreAnsweredAsAloneWhileOthersAreServed() async throws {
        let directory = Paths.temporaryDirectory()
        let broken = try Data(contentsOf: URL(fileURLWithPath: Paths.fixture("museum-broken.jsonl")))
        var payload = ByteBuffer(bytes: broken)
        if broken.last != 0x0A { payload.writeString("\n") }
        payload.writeString(String(repeating: "x", count: 70_000) + "\n")
        payload.writeString(String(repeating: " ", count: 3) + "\n")
        let traces = Self.traces(4, devices: 4, events: 50, prefix: "besides")
        let oracle = try ReplayOracle(lines: traces.flatMap { $0 }, directory: directory)

        let alone = try await ServerProcess.start([])
        let aloneReplies = try await LineClient.exchange(port: alone.port, payload: payload)
        await alone.stop()

        let server = try await ServerProcess.start([])
        async let others = Self.exchangeAll(port: server.port, traces)
        let badReplies = try await LineClient.exchange(port: server.port, payload: payload)
        let otherReplies = try await others
        await server.stop()

        #expect(badReplies == aloneReplies)
        #expect(badReplies.contains(#"{"ok":false,"line":\#(aloneReplies.count - 1),"error":"line longer than 65536 bytes; skipped up to its newline"}"#))
        #expect(badReplies.last?.hasPrefix(#"{"ok":false,"line":\#(aloneReplies.count),"error":"blank line"#) == true)
        for (lines, answered) in zip(traces, otherReplies) {
            #expect(answered == (try lines.map { try #require(oracle.replies[try eventID($0)]) }))
        }
    }

    @Test(arguments: [false, true])
    func sigtermWithConnectionsOnEveryLoopAnswersWhatWasReadAndExitsZero(durable: Bool) async throws {
        let directory = Paths.temporaryDirectory()
        let state = directory + "/state.db"
        let traces = Self.traces(6, devices: 6, events: 300, prefix: durable ? "drain-d" : "drain-m")
        let oracle = try ReplayOracle(lines: traces.flatMap { $0 }, directory: directory)
        let server = try await ServerProcess.start(durable ? ["--state", state] : [])
        let signalled = Signalled(server, after: traces.count)
        let replies = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (index, lines) in traces.enumerated() {
                group.addTask {
                    // The requests keep streaming while the server shuts down.
                    let replies = try await LineClient.streamUntilClosed(port: server.port, lines: lines) { count in
                        if count == 1 { signalled.answered() }
                    }
                    return (index, replies)
                }
            }
            var all = [[String]](repeating: [], count: traces.count)
            for try await (index, lines) in group { all[index] = lines }
            return all
        }
        let status = await server.waitForExit()
        if status == nil { await server.crash() }
        #expect(status == 0)
        for (lines, answered) in zip(traces, replies) {
            // Each connection: a prefix of its lines, each answered as replay answers it.
            let expected = try lines.prefix(answered.count).map { try #require(oracle.replies[try eventID($0)]) }
            #expect(answered == expected)
        }
        #expect(replies.allSatisfy { !$0.isEmpty })
        if durable { #expect(try snapshot(state).answers == replies.map(\.count).reduce(0, +)) }
        #expect(server.log.contains("stopped accepting"))
    }
}

/// SIGTERM sent once every connection has had its first reply (so all are open, on every loop).
private final class Signalled: Sendable {
    private let server: ServerProcess
    private let connections: Int
    private let count = Mutex(0)

    init(_ server: ServerProcess, after connections: Int) {
        self.server = server
        self.connections = connections
    }

    func answered() {
        if count.withLock({ $0 += 1; return $0 }) == connections { server.signal(SIGTERM) }
    }
}
