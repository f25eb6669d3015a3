import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging
import Testing

/// `serve --state postgres://...` against a real PostgreSQL (a private cluster started for the
/// suite): one instance answers as `replay`; two instances on one database, any event to either,
/// apply each device's events as one replay would; kill -9 of one loses and doubles nothing; a
/// database restart costs errors, never a false ok, and no restart of `serve`.
///
/// Serialized: one test restarts the cluster under the others' feet otherwise. Each test has a
/// time limit (generous: a limit, not a measurement), so that a hang fails the test instead of
/// stalling the run; the wait a test is stuck in must end when the test is cancelled.
@Suite("serve: PostgreSQL", .serialized, .postgresCluster, .timeLimit(.minutes(5)))
struct ServePostgresTests {
    @Test func oneInstanceAnswersAsReplayAndResendsGetTheSameBytes() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("one_instance")
        let directory = Paths.temporaryDirectory()
        let lines = MuseumTrace.interleave(MuseumTrace.devices(8, events: 60, prefix: "pg1"))
        let oracle = try ReplayOracle(lines: lines, directory: directory, state: directory + "/clean.db")
        let expected = try lines.map { try #require(oracle.replies[try eventID($0)]) }

        let server = try await ServerProcess.start(["--state", url])
        let replies = try await LineClient.exchange(port: server.port, lines: lines)
        #expect(replies == expected)
        let again = try await LineClient.exchange(port: server.port, lines: Array(lines.prefix(100)))
        #expect(again == Array(expected.prefix(100)))
        await server.stop()

        // A new process on the same database: the answers are durable, resends get the same bytes.
        let restarted = try await ServerProcess.start(["--state", url])
        let resent = try await LineClient.exchange(port: restarted.port, lines: Array(lines.suffix(100)))
        #expect(resent == Array(expected.suffix(100)))
        await restarted.stop()

        let served = try await postgresSnapshot(url)
        let clean = try snapshot(directory + "/clean.db")
        #expect(served.firings == clean.firings)
        #expect(served.answerBytes == clean.answerBytes)
    }

    @Test func twoInstancesAnyEventToEitherApplyEachDeviceAsOneReplay() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("two_instances")
        let directory = Paths.temporaryDirectory()
        let devices = MuseumTrace.devices(16, events: 40, prefix: "pg2")
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(devices), directory: directory, state: directory + "/clean.db")
        let a = try await ServerProcess.start(["--state", url])
        let b = try await ServerProcess.start(["--state", url])
        let ports = [a.port, b.port]

        let answered = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (d, lines) in devices.enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(d))
                    var replies: [String] = []
                    for line in lines {
                        let port = ports[Int(random.next() % 2)]
                        replies.append(contentsOf: try await LineClient.exchange(port: port, lines: [line]))
                    }
                    return (d, replies)
                }
            }
            var answered = [[String]](repeating: [], count: devices.count)
            for try await (d, replies) in group { answered[d] = replies }
            return answered
        }
        await a.stop()
        await b.stop()
        try await expectAsReplay(answered, devices: devices, oracle: oracle, url: url, directory: directory)
    }

    @Test func killNineOfOneInstanceLosesNothingAndCountsNothingTwice() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("kill_nine")
        let directory = Paths.temporaryDirectory()
        let devices = MuseumTrace.devices(16, events: 50, prefix: "pg3")
        let total = devices.joined().count
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(devices), directory: directory, state: directory + "/clean.db")
        let pair = InstancePair(
            victim: try await ServerProcess.start(["--state", url]),
            survivor: try await ServerProcess.start(["--state", url]))

        let answered = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (d, lines) in devices.enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(d) + 100)
                    var replies: [String] = []
                    for line in lines {
                        let port = await pair.port(random.next())
                        // No whole reply (the instance died before or while answering): the
                        // client resends the line to the other instance.
                        if let reply = try? await LineClient.exchange(port: port.number, lines: [line]).first {
                            replies.append(reply)
                        } else {
                            await pair.noteResend()
                            replies.append(contentsOf: try await LineClient.exchange(port: await pair.survivor.port, lines: [line]))
                        }
                        await pair.noteAnswered()
                    }
                    return (d, replies)
                }
            }
            group.addTask {
                for _ in 0..<3000 where await pair.answered < total / 3 { try await Task.sleep(for: .milliseconds(5)) }
                await pair.killVictim()
                return (-1, [])
            }
            var answered = [[String]](repeating: [], count: devices.count)
            for try await (d, replies) in group where d >= 0 { answered[d] = replies }
            return answered
        }
        await pair.survivor.stop()
        #expect(await pair.killed)
        try await expectAsReplay(answered, devices: devices, oracle: oracle, url: url, directory: directory)
    }

    @Test func aDatabaseRestartCostsErrorsNeverAFalseOkAndNoRestartOfServe() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("restart")
        let directory = Paths.temporaryDirectory()
        let devices = MuseumTrace.devices(8, events: 60, prefix: "pg4")
        let total = devices.joined().count
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(devices), directory: directory, state: directory + "/clean.db")
        let server = try await ServerProcess.start(["--state", url])
        let counter = ReplyCounter()

        let answered = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (d, lines) in devices.enumerated() {
                group.addTask {
                    var replies: [String] = []
                    for line in lines {
                        // An error says: not saved, resend. Bounded (a limit, not a measurement:
                        // on a loaded machine the restart and the reconnection took over 30 s):
                        // 2,400 tries of 50 ms.
                        var saved = false
                        for _ in 0..<2_400 where !saved {
                            let reply = try await LineClient.exchange(port: server.port, lines: [line]).first ?? ""
                            if reply.hasPrefix("{\"ok\":true") {
                                replies.append(reply)
                                saved = true
                            } else {
                                await counter.noteError()
                                try await Task.sleep(for: .milliseconds(50))
                            }
                        }
                        #expect(saved, "device \(d): a line was never saved: \(line)")
                        await counter.noteAnswered()
                    }
                    return (d, replies)
                }
            }
            group.addTask {
                for _ in 0..<3000 where await counter.answered < total / 3 { try await Task.sleep(for: .milliseconds(5)) }
                cluster.stopServer()
                try await Task.sleep(for: .milliseconds(500))
                try cluster.startServer()
                return (-1, [])
            }
            var answered = [[String]](repeating: [], count: devices.count)
            for try await (d, replies) in group where d >= 0 { answered[d] = replies }
            return answered
        }
        #expect(server.process.isRunning)
        await server.stop()
        #expect(await counter.errors > 0, "no line was answered while the database was down")
        try await expectAsReplay(answered, devices: devices, oracle: oracle, url: url, directory: directory)
    }

    @Test func migrateUpgradesAVersionOneSchema() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("migrate")
        let session = PostgresSession(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        #expect(try await PostgresSchema.migrate(session, to: 1) == 0)
        session.drop()

        let refused = try CommandRunner.run(["serve", "--port", "0", "--state", url])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("schema version 1"))
        #expect(refused.stderr.contains("beaconrules state migrate"))

        let migrated = try CommandRunner.run(["state", "migrate", "--state", url])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("schema version 1 upgraded to 4"))
        #expect(try cluster.psql("migrate", "SELECT version FROM beaconrules_schema") == "4\n")
        #expect(try cluster.psql("migrate", "SELECT count(*) FROM pg_indexes WHERE indexname = 'answered_at'") == "1\n")

        let again = try CommandRunner.run(["state", "migrate", "--state", url])
        #expect(again.stdout.contains("schema version 4, up to date"))
    }

    @Test func copyMovesAnSQLiteStateAndServeAnswersResendsAsBefore() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("copy")
        let directory = Paths.temporaryDirectory()
        let lines = MuseumTrace.interleave(MuseumTrace.devices(6, events: 40, prefix: "pg6"))
        let file = directory + "/state.db"
        let original = try await ServerProcess.start(["--state", file])
        let expected = try await LineClient.exchange(port: original.port, lines: lines)
        await original.stop()

        let copied = try CommandRunner.run(["state", "copy", "--from", file, "--to", url])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("\(lines.count) answers"))

        let server = try await ServerProcess.start(["--state", url])
        let resent = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(resent == expected)
        let served = try await postgresSnapshot(url)
        let sqlite = try snapshot(file)
        #expect(served.firings == sqlite.firings)
        #expect(served.answerBytes == sqlite.answerBytes)

        let twice = try CommandRunner.run(["state", "copy", "--from", file, "--to", url])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("already holds a state"))
    }

    @Test func aPasswordInTheURLIsRefused() throws {
        let result = try CommandRunner.run(["serve", "--port", "0", "--state", "postgres://beacon:secret@127.0.0.1:5432/db"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("a password in the URL is refused"))
        #expect(!result.stderr.contains("secret"))
    }
}

/// Two instances, one of which dies: until then events go to either, after to the survivor.
actor InstancePair {
    let victim: ServerProcess
    let survivor: ServerProcess
    private(set) var killed = false
    private(set) var answered = 0
    private(set) var resends = 0

    init(victim: ServerProcess, survivor: ServerProcess) {
        self.victim = victim
        self.survivor = survivor
    }

    struct Port: Sendable { var number: Int }

    func port(_ random: UInt64) -> Port {
        Port(number: killed || random % 2 == 0 ? survivor.port : victim.port)
    }

    func killVictim() async {
        killed = true
        await victim.crash()
    }

    func noteAnswered() { answered += 1 }
    func noteResend() { resends += 1 }
}

actor ReplyCounter {
    private(set) var answered = 0
    private(set) var errors = 0
    func noteAnswered() { answered += 1 }
    func noteError() { errors += 1 }
}

/// A PostgreSQL state's rows, as `snapshot` reads an SQLite file's.
func postgresSnapshot(_ url: String) async throws -> StateSnapshot {
    let store = try await PostgresStateStore(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
    defer { store.close() }
    return StateSnapshot(firings: try await store.firings(), answers: try await store.answers())
}

/// Every device's replies are those of one clean replay, and the database holds what the replay's
/// state file holds (every event answered once).
func expectAsReplay(_ answered: [[String]], devices: [[String]], oracle: ReplayOracle, url: String, directory: String) async throws {
    for (d, lines) in devices.enumerated() {
        #expect(answered[d] == (try lines.map { try #require(oracle.replies[try eventID($0)]) }), "device \(d)")
    }
    let served = try await postgresSnapshot(url)
    let clean = try snapshot(directory + "/clean.db")
    #expect(served.firings == clean.firings)
    #expect(served.answers == devices.joined().count)
    #expect(served.answerBytes == clean.answerBytes)
}
