import Foundation
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// kill -9 at random moments while clients stream: after restarts and resends, the records and
/// the state are exactly those of one clean `replay`.
@Suite("serve: crash safety")
struct ServeCrashTests {
    static let connections = 4
    static let kills = 10

    @Test func aSecondServeOnTheSameStateFileIsRefusedUntilTheFirstIsKilled() async throws {
        let state = Paths.temporaryDirectory() + "/state.db"
        let first = try await ServerProcess.start(["--state", state])
        let second = Process()
        second.executableURL = URL(fileURLWithPath: Paths.binary)
        second.arguments = ["serve", "--port", "0", "--state", state]
        second.currentDirectoryURL = Paths.root
        let err = Pipe()
        second.standardError = err
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        second.waitUntilExit()
        #expect(second.terminationStatus != 0)
        #expect(message.contains("in use by another beaconrules process"), "\(message)")
        // The lock goes with the process, even on kill -9.
        await first.crash()
        let third = try await ServerProcess.start(["--state", state])
        await third.stop()
    }

    @Test func killNineInALoopLosesNothingAnsweredAndCountsNothingTwice() async throws {
        let directory = Paths.temporaryDirectory()
        let state = directory + "/state.db"
        // Each connection streams its own devices: the state per device then does not depend on
        // how the connections interleave, and one clean replay is the reference.
        let devices = MuseumTrace.devices(Self.connections * 6, events: 200, prefix: "kill")
        let perConnection = (0..<Self.connections).map { c in
            MuseumTrace.interleave(Array(devices[(c * 6)..<(c * 6 + 6)]))
        }
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(devices), directory: directory, state: directory + "/clean.db")
        let servers = ServerSlot(try await ServerProcess.start(["--state", state]))

        let answered = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (index, lines) in perConnection.enumerated() {
                group.addTask { (index, try await Self.stream(lines, to: servers)) }
            }
            group.addTask {
                // Kills spread over the whole stream: kill k comes once about k/(kills+1) of the
                // lines are answered, give or take, plus up to 5 ms, so it can land anywhere:
                // mid-read, mid-transaction, mid-commit, mid-reply.
                var random = SplitMix64(seed: 7)
                let total = perConnection.joined().count
                let step = total / (Self.kills + 1)
                for k in 1...Self.kills {
                    let threshold = k * step - Int(random.next() % UInt64(step / 2))
                    for _ in 0..<6000 where await servers.answered < threshold {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    try await Task.sleep(for: .milliseconds(Int(random.next() % 5)))
                    try await servers.crashAndRestart(state: state)
                }
                return (-1, [])
            }
            var answered = [[String]](repeating: [], count: Self.connections)
            for try await (index, replies) in group where index >= 0 { answered[index] = replies }
            return answered
        }
        let last = await servers.current
        await last.stop()

        for (index, lines) in perConnection.enumerated() {
            #expect(answered[index].count == lines.count, "connection \(index)")
            #expect(answered[index] == (try lines.map { try #require(oracle.replies[try eventID($0)]) }), "connection \(index)")
        }
        let served = try snapshot(state)
        let clean = try snapshot(directory + "/clean.db")
        #expect(served.firings == clean.firings)
        #expect(served.answerBytes == clean.answerBytes)
        #expect(served.answers == devices.joined().count)
        let kills = await servers.kills
        print("kill -9 loop: \(kills.count) kills; (answered, committed) at each: \(kills.map { "(\($0.answered), \($0.committed))" }.joined(separator: " "))")
        #expect(kills.count == Self.kills)
        // Lines committed whose replies the crash lost: their resends had to come from the log.
        #expect(kills.contains { $0.committed > $0.answered })
        #expect(kills.allSatisfy { $0.committed >= $0.answered }, "an answered line was not in the state")
    }

    /// Streams `lines` pipelined; after each crash, reconnects to the restarted server and resends
    /// every line not yet answered, in order, and the last 30 answered ones as well (as a client
    /// that cannot be sure what got through would): those must be answered exactly as before.
    /// Bounded: 400 connections, 120 s.
    static func stream(_ lines: [String], to servers: ServerSlot) async throws -> [String] {
        var answered: [String] = []
        let deadline = ContinuousClock.now + .seconds(120)
        var attempts = 0
        while answered.count < lines.count && attempts < 400 && ContinuousClock.now < deadline {
            attempts += 1
            let port = await servers.current.port
            let overlap = attempts == 1 ? 0 : min(answered.count, 30)
            let start = answered.count - overlap
            let remaining = Array(lines[start...])
            do {
                try await LineClient.withConnection(port: port) { session in
                    let outbound = session.outbound
                    let sender = Task {
                        for start in stride(from: 0, to: remaining.count, by: 50) {
                            let batch = remaining[start..<min(start + 50, remaining.count)]
                            do { try await outbound.write(ByteBuffer(string: batch.map { $0 + "\n" }.joined())) } catch { return }
                        }
                        outbound.finish()
                    }
                    defer { sender.cancel() }
                    // Replies are read slower than they are made, so at a kill many lines are
                    // committed whose replies are still on their way: resent, they must be
                    // answered from the log, not applied again.
                    var index = start
                    while let reply = try await session.receive() {
                        if index < answered.count {
                            #expect(reply == answered[index], "a repeated line got another answer")
                        } else {
                            answered.append(reply)
                            await servers.noteAnswered()
                        }
                        index += 1
                        if index % 10 == 0 { try await Task.sleep(for: .milliseconds(2)) }
                    }
                }
            } catch {
                // Refused or reset: the server is down; it comes back on a new port.
            }
            if answered.count < lines.count { try await Task.sleep(for: .milliseconds(20)) }
        }
        return answered
    }
}

/// The server of the moment, restarted on the same state after each kill.
actor ServerSlot {
    private(set) var current: ServerProcess
    private(set) var answered = 0
    /// At each kill: lines answered (all connections), and lines committed in the state.
    private(set) var kills: [(answered: Int, committed: Int)] = []

    init(_ server: ServerProcess) {
        current = server
    }

    func noteAnswered() {
        answered += 1
    }

    func crashAndRestart(state: String) async throws {
        await current.crash()
        kills.append((answered, try snapshot(state).answers))
        current = try await ServerProcess.start(["--state", state])
    }
}
