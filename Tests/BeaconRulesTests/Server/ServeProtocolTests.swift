import BeaconRules
import BeaconRulesStore
import Foundation
import NIOCore
import Testing

/// `serve` over loopback against the real binary: the protocol of SPEC section 5.
@Suite("serve: protocol")
struct ServeProtocolTests {
    @Test func recordsOverLoopbackMatchReplayOnTheSameTrace() async throws {
        let directory = Paths.temporaryDirectory()
        let museum = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init).filter { $0.contains("\"id\"") }
        let lines = museum + MuseumTrace.interleave(MuseumTrace.devices(12, events: 40, prefix: "e2e"))
        let oracle = try ReplayOracle(lines: lines, directory: directory)
        let server = try await ServerProcess.start(["--state", directory + "/serve.db"])
        let replies = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(replies.count == lines.count)
        let expected = try lines.map { try #require(oracle.replies[try eventID($0)]) }
        #expect(replies == expected)
        #expect(expected.contains { $0.contains("\"campaign\":\"shop-coupon\"") })
    }

    @Test func badLinesGetTheReplayMessageAndTheConnectionLivesOn() async throws {
        // Raw bytes: one line is not valid UTF-8 on purpose.
        let fixture = try Data(contentsOf: URL(fileURLWithPath: Paths.fixture("museum-broken.jsonl")))
        let lines = fixture.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast(fixture.last == 0x0A ? 1 : 0)
        var replayErrors: [Int: String] = [:]
        for line in Paths.read(Paths.fixture("museum-broken.errors.jsonl")).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            replayErrors[try #require(object["line"] as? Int)] = object["message"] as? String
        }
        let server = try await ServerProcess.start([])
        let replies = try await LineClient.exchange(port: server.port, payload: ByteBuffer(bytes: fixture))
        await server.stop()
        try #require(replies.count == lines.count)
        for (index, bytes) in lines.enumerated() {
            let line = String(decoding: bytes, as: UTF8.self)
            let number = index + 1
            let reply = try #require(try JSONSerialization.jsonObject(with: Data(replies[index].utf8)) as? [String: Any])
            if let message = replayErrors[number] {
                #expect(reply["ok"] as? Bool == false)
                #expect(reply["line"] as? Int == number)
                #expect(reply["error"] as? String == message)
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(reply["ok"] as? Bool == false, "a blank line is answered, as every line is")
                #expect(reply["line"] as? Int == number)
            } else {
                #expect(reply["ok"] as? Bool == true, "line \(number): \(replies[index])")
            }
        }
    }

    @Test func lineOverTheLimitIsAnsweredAndSkippedToItsNewline() async throws {
        let valid = MuseumTrace.devices(1, events: 3, prefix: "long")[0]
        // Exactly 64 KiB is still a line; one byte more is not.
        let atLimit = padded(valid[1], to: 64 * 1024)
        let overLimit = padded(valid[2], to: 64 * 1024 + 1)
        let huge = String(repeating: "x", count: 300_000)
        let server = try await ServerProcess.start([])
        let replies = try await LineClient.exchange(port: server.port, lines: [valid[0], overLimit, huge, atLimit, valid[2]])
        await server.stop()
        try #require(replies.count == 5)
        #expect(replies[0].hasPrefix("{\"ok\":true,\"event\":\"long-0-0\""))
        #expect(replies[1] == #"{"ok":false,"line":2,"error":"line longer than 65536 bytes; skipped up to its newline"}"#)
        #expect(replies[2] == #"{"ok":false,"line":3,"error":"line longer than 65536 bytes; skipped up to its newline"}"#)
        #expect(replies[3].hasPrefix("{\"ok\":true,\"event\":\"long-0-1\""))
        #expect(replies[4].hasPrefix("{\"ok\":true,\"event\":\"long-0-2\""))
    }

    @Test func repeatedEventIDIsAnsweredWithTheSameRecordsAndChangesNothing() async throws {
        let directory = Paths.temporaryDirectory()
        let state = directory + "/state.db"
        let lines = MuseumTrace.devices(2, events: 20, prefix: "rep").flatMap { $0 }
        var server = try await ServerProcess.start(["--state", state])
        let first = try await LineClient.exchange(port: server.port, lines: lines)
        // The same ids again, on a new connection and reversed: order no longer matters.
        let again = try await LineClient.exchange(port: server.port, lines: lines.reversed())
        await server.stop()
        let before = try snapshot(state)
        server = try await ServerProcess.start(["--state", state])
        let afterRestart = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(again == first.reversed())
        #expect(afterRestart == first)
        #expect(try snapshot(state) == before)
        #expect(before.answers == lines.count)
    }

    @Test func lineWithoutIDGetsAnIDFromItsContentStableAcrossConnections() async throws {
        let line = #"{"device":"zoe","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T12:10:00Z"}"#
        let sameEvent = #"{"time":1780661400000, "beacon":"B9407F30F5F8466EAFF925556B57FE6D0010000001","type":"enter","device":"zoe"}"#
        let server = try await ServerProcess.start([])
        let first = try await LineClient.exchange(port: server.port, lines: [line, line])
        let second = try await LineClient.exchange(port: server.port, lines: [sameEvent])
        await server.stop()
        try #require(first.count == 2 && second.count == 1)
        #expect(first[0].hasPrefix(#"{"ok":true,"event":"auto-"#))
        #expect(first[0].contains(#""campaign":"museum-welcome""#))
        #expect(first[1] == first[0])
        #expect(second[0] == first[0])
    }

    @Test func hundredConcurrentClientsEachGetTheirOwnAnswersInOrder() async throws {
        let directory = Paths.temporaryDirectory()
        let perClient = MuseumTrace.devices(100, events: 20, prefix: "c100")
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(perClient), directory: directory)
        let server = try await ServerProcess.start(["--state", directory + "/serve.db"])
        let results = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (index, lines) in perClient.enumerated() {
                group.addTask { (index, try await LineClient.exchange(port: server.port, lines: lines)) }
            }
            var results = [[String]](repeating: [], count: perClient.count)
            for try await (index, replies) in group { results[index] = replies }
            return results
        }
        await server.stop()
        for (index, lines) in perClient.enumerated() {
            #expect(results[index] == (try lines.map { try #require(oracle.replies[try eventID($0)]) }), "client \(index)")
        }
        #expect(server.log.components(separatedBy: "connection opened").count - 1 == 100)
    }

    @Test func nonLoopbackHostIsRefusedWithoutAllowRemote() throws {
        let result = try CommandRunner.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--allow-remote"))
    }
}

/// The `id` of an event line.
func eventID(_ line: String) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    return try #require(object?["id"] as? String)
}

/// The event line with an unknown field that pads it to exactly `length` bytes.
func padded(_ line: String, to length: Int) -> String {
    let base = String(line.dropLast()) + ",\"pad\":\"\"}"
    return String(line.dropLast()) + ",\"pad\":\"" + String(repeating: "p", count: length - base.utf8.count) + "\"}"
}

/// What a state file holds, comparable.
struct StateSnapshot: Equatable {
    var firings: [String]
    var answers: Int
    var answerBytes: [String: [UInt8]]

    /// A store's rows, as the tests compare them (SQLite or PostgreSQL).
    init(firings: [FiringEntry], answers: [(event: String, records: [UInt8])]) {
        self.firings = firings.map { "\($0.device) \($0.campaign.canonical) \($0.time.milliseconds)" }
        self.answers = answers.count
        self.answerBytes = Dictionary(uniqueKeysWithValues: answers.map { ($0.event, $0.records) })
    }
}

func snapshot(_ path: String) throws -> StateSnapshot {
    let store = try SQLiteStateStore(path: path)
    defer { store.close() }
    return StateSnapshot(firings: try store.firings(), answers: try store.answers())
}

/// Backpressure: a client that sends without reading its replies.
@Suite("serve: backpressure")
struct ServeBackpressureTests {
    @Test func aClientThatNeverReadsCostsBoundedMemoryAndOthersAreStillAnswered() async throws {
        let directory = Paths.temporaryDirectory()
        let server = try await ServerProcess.start(["--state", directory + "/state.db"])
        let baseline = try #require(residentMegabytes(server.pid))
        let flood = MuseumTrace.devices(1, events: 20_000, prefix: "flood")[0]
        let payload = ByteBuffer(string: flood.map { $0 + "\n" }.joined())
        let others = MuseumTrace.devices(4, events: 50, prefix: "polite").flatMap { $0 }
        let stuckClient = Task {
            try await LineClient.withConnection(port: server.port) { session in
                // Sends 20,000 lines (about 4 MB), 10 times over, and never reads a reply.
                for _ in 0..<10 { try await session.outbound.write(payload) }
            }
        }
        // Give the stuck client time to fill every buffer between it and the server.
        try await Task.sleep(for: .seconds(2))
        let replies = try await LineClient.exchange(port: server.port, lines: others)
        let grown = try #require(residentMegabytes(server.pid)) - baseline
        stuckClient.cancel()
        await server.stop()
        #expect(replies.count == others.count)
        #expect(replies.allSatisfy { $0.hasPrefix("{\"ok\":true") })
        // Replies are held for at most `linesInFlight` lines per connection; 40 MB sent must not
        // turn into anything near 40 MB of server memory.
        #expect(grown < 64, "the server grew by \(grown) MB")
        print("backpressure: server resident memory grew by \(grown) MB while a client sent 40 MB without reading")
    }

    /// VmRSS from /proc, in MB.
    private func residentMegabytes(_ pid: Int32) -> Int? {
        let status = Paths.read("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 / 1024 }
    }
}
