@testable import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging
import Testing

/// Responses (SPEC section 8) on a database that two `serve` instances share: a response to a
/// record another instance delivered is answered as one instance answers it, and so are a repeated
/// response, a response after the window, one to a forgotten record and one to an unknown id.
extension ServePostgresTests {
    @Test func responsesToEitherInstanceAreAnsweredAsByOneInstance() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("responses")
        let directory = Paths.temporaryDirectory()
        let devices = MuseumTrace.devices(8, events: 30, prefix: "pgr")
        let delivered = try ResponseTrace.notifications(devices: devices, directory: directory)
        var trace = ResponseTrace(devices: devices, delivered: delivered)

        let a = try await ServerProcess.start(["--state", url])
        let b = try await ServerProcess.start(["--state", url])
        let one = try await ServerProcess.start(["--state", directory + "/one.db"])
        // Devices 0-3: deliveries through A, responses through B; devices 4-7: either, at random.
        let mixed = try await ResponseTrace.send(trace.perDevice, ports: [a.port, b.port]) { d, line, random in
            d < 4 ? (line.isResponse ? 1 : 0) : Int(random % 2)
        }
        let single = try await ResponseTrace.send(trace.perDevice, ports: [one.port]) { _, _, _ in 0 }
        #expect(mixed == single)

        // One at a time: an unknown id; a response after the window (to B: its clock moves on);
        // twelve days on, on A, so that A and the single instance forget every delivery they hold;
        // then responses within the window to forgotten records: refused as late by B too (by the
        // tombstones A saved), whether B had read the record before or never; a resent response.
        let late = trace.lateLines()
        var twoReplies: [String] = [], oneReplies: [String] = []
        for (line, instance) in late {
            twoReplies += try await LineClient.exchange(port: instance == 0 ? a.port : b.port, lines: [line])
            oneReplies += try await LineClient.exchange(port: one.port, lines: [line])
        }
        await a.stop()
        await b.stop()
        await one.stop()
        #expect(twoReplies == oneReplies)
        #expect(twoReplies.count == late.count)
        #expect(twoReplies.contains { $0.contains("is not the id of a notification record") })
        #expect(twoReplies.filter { $0.contains("was delivered longer ago than the response window") }.count == 3, "\(twoReplies)")

        // The forgotten deliveries' rows are gone, their tombstones kept; the unhandled counts
        // (none here: the museum's buttons all have handlers) are those of the single instance.
        let forgotten = trace.forgottenRecords
        for record in forgotten {
            let keys = DeliveryLedger.lineKeys(naming: record)
            #expect(try cluster.psql("responses", "SELECT count(*) FROM ledger WHERE key = '\(keys[0])'") == "0\n")
            #expect(try cluster.psql("responses", "SELECT count(*) FROM ledger WHERE key = '\(keys[2])'") == "1\n")
        }
        let shared = try await PostgresStateStore(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        let sharedCounts = try ResponseTrace.counts(await shared.readLedger())
        shared.close()
        let file = try SQLiteStateStore(path: directory + "/one.db")
        let oneCounts = try ResponseTrace.counts(file.loadLedger())
        file.close()
        #expect(sharedCounts == oneCounts)
    }

    @Test func unhandledCountsOfTwoInstancesAddUp() async throws {
        let location = try PostgresLocation(url: try PostgresCluster.shared().createDatabase("ledger_counts"))
        let a = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        let b = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer {
            a.close()
            b.close()
        }
        _ = try await a.readLedger()
        _ = try await b.readLedger()
        let key = #"3:["c1","de","custom"]"#
        func line(_ count: Int) -> DeliveryLedger.Line {
            DeliveryLedger.Line(key: key, json: Array(#"{"unhandled":"custom","campaign":"c1","eid":"c1","language":"de","count":\#(count)}"#.utf8), delivery: nil)
        }
        // Running totals as each instance counts them: A 2, B 3 (from 0: it read none), A 4.
        for (store, count) in [(a, 2), (b, 3), (a, 4)] {
            try await store.begin()
            try store.saveLedger([line(count)])
            try await store.commit()
        }
        #expect(try ResponseTrace.counts(await a.readLedger()) == [key: 7])
    }

    @Test func migrateUpgradesAVersionTwoLedgerSoThatEveryInstanceFindsItsLines() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("migrate_ledger")
        let session = PostgresSession(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        #expect(try await PostgresSchema.migrate(session, to: 2) == 0)
        // Lines as version 2 saved them: no delivery column.
        let sql = #"INSERT INTO ledger (key, line) VALUES ('0:00000000000000aa', '{"delivery":"00000000000000aa"}'::bytea), ('1:00000000000000bb', '{"alias":"00000000000000bb","of":"00000000000000aa"}'::bytea), ('3:["c","de","website"]', '{"unhandled":"website"}'::bytea)"#
        session.drop()
        try cluster.psql("migrate_ledger", sql)

        let migrated = try CommandRunner.run(["state", "migrate", "--state", url])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("schema version 2 upgraded to 4"))
        #expect(try cluster.psql("migrate_ledger", "SELECT key, coalesce(delivery, '-') FROM ledger ORDER BY key") == """
            0:00000000000000aa|00000000000000aa
            1:00000000000000bb|00000000000000aa
            3:["c","de","website"]|-

            """)
    }
}

/// The lines of the responses test: per device its events, each followed by responses to the
/// notifications it delivered (some none, some present and open, some a click, repeated and
/// resent), and the lines sent one at a time after them.
struct ResponseTrace {
    struct Line: Sendable, Equatable {
        var text: String
        var isResponse: Bool
    }

    struct Notification {
        var id: String
        var device: Int
        var time: Int64
    }

    var perDevice: [[Line]] = []
    /// Notifications that got no response in the first part (`perDevice`), per device.
    var unanswered: [[Notification]] = []
    var answered: [[Notification]] = []
    var forgottenRecords: [String] = []
    var campaign = ""

    /// The notification records one replay of `devices`' events delivers, by event id.
    static func notifications(devices: [[String]], directory: String) throws -> [String: [String]] {
        let oracle = try ReplayOracle(lines: MuseumTrace.interleave(devices), directory: directory)
        var result: [String: [String]] = [:]
        for line in oracle.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard object?["kind"] as? String == "notification", let event = object?["event"] as? String, let id = object?["id"] as? String else { continue }
            result[event, default: []].append(id)
        }
        return result
    }

    init(devices: [[String]], delivered: [String: [String]]) {
        var random = SplitMix64(seed: 19)
        for (d, lines) in devices.enumerated() {
            var out: [Line] = []
            var quiet: [Notification] = [], heard: [Notification] = []
            for line in lines {
                out.append(Line(text: line, isResponse: false))
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                guard let event = object?["id"] as? String, let time = (object?["time"] as? NSNumber)?.int64Value else { continue }
                let device = object?["device"] as? String ?? ""
                for record in delivered[event] ?? [] {
                    if campaign.isEmpty { campaign = String(record.prefix { $0 != ":" }) }
                    let notification = Notification(id: record, device: d, time: time)
                    func response(_ n: Int, _ action: String, _ extra: String = "") -> Line {
                        Line(text: Self.response(id: "\(record)/\(n)", device: device, record: record, action: action, extra: extra, time: time + Int64(n) * 1000), isResponse: true)
                    }
                    switch random.next() % 4 {
                    case 0:
                        quiet.append(notification)
                    case 1:
                        heard.append(notification)
                        out += [response(1, "present"), response(2, "open"), response(3, "open")]
                    case 2:
                        heard.append(notification)
                        let click = response(2, "click", #","actionId":"ok""#)
                        out += [response(1, "present"), click, response(3, "click", #","actionId":"ok""#), click]
                    default:
                        heard.append(notification)
                        out += [response(1, "dismiss"), response(2, "click", #","actionId":"cancel""#)]
                    }
                }
            }
            perDevice.append(out)
            unanswered.append(quiet)
            answered.append(heard)
        }
    }

    static func response(id: String, device: String, record: String, action: String, extra: String = "", time: Int64) -> String {
        #"{"type":"response","id":"\#(id)","device":"\#(device)","notification":"\#(record)","action":"\#(action)"\#(extra),"time":\#(time)}"#
    }

    /// The lines sent one at a time, each with the instance it goes to (0: A, 1: B).
    mutating func lateLines() -> [(String, Int)] {
        let day: Int64 = 86_400_000
        var lines: [(String, Int)] = []
        let device0 = "pgr-dev-0"
        lines.append((Self.response(id: "late-unknown", device: device0, record: "\(campaign):\(device0):no-such-event", action: "open", time: 1_780_639_200_000), 1))
        // After the window (7 days), to a record delivered by either instance.
        if let record = answered[4...].lazy.compactMap(\.first).first {
            lines.append((Self.response(id: "late-window", device: "pgr-dev-\(record.device)", record: record.id, action: "open", time: record.time + 8 * day), 1))
        }
        // Twelve days on, on A (B's tombstones, two windows old at 22 days, stay): forgetting looks
        // at 32 deliveries per commit, so 24 commits see all.
        for n in 0..<24 {
            lines.append(("{\"id\":\"far-\(n)\",\"device\":\"pgr-far\",\"type\":\"enter\",\"beacon\":\"\(MuseumTrace.beacons[0])\",\"time\":\(1_780_639_200_000 + 12 * day + Int64(n) * 60_000)}", 0))
        }
        // Within the window by their time, to records A delivered and forgot: one B never read,
        // one B read (a response went through it before).
        for record in [unanswered[0...3].lazy.compactMap(\.first).first, answered[0...3].lazy.compactMap(\.first).first].compactMap({ $0 }) {
            forgottenRecords.append(record.id)
            lines.append((Self.response(id: "late-forgotten-\(record.id)", device: "pgr-dev-\(record.device)", record: record.id, action: "present", time: record.time + 60_000), 1))
        }
        // A response resent: the same bytes as its first answer.
        if let first = perDevice[5].first(where: \.isResponse) { lines.append((first.text, 0)) }
        return lines
    }

    /// Sends each device's lines in order, waiting for each reply, the devices at once; `route`
    /// picks the port index of each line.
    static func send(_ perDevice: [[Line]], ports: [Int], route: @escaping @Sendable (Int, Line, UInt64) -> Int) async throws -> [[String]] {
        try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (d, lines) in perDevice.enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(d) + 1900)
                    var replies: [String] = []
                    for line in lines {
                        let port = ports[route(d, line, random.next()) % ports.count]
                        replies += try await LineClient.exchange(port: port, lines: [line.text])
                    }
                    return (d, replies)
                }
            }
            var answered = [[String]](repeating: [], count: perDevice.count)
            for try await (d, replies) in group { answered[d] = replies }
            return answered
        }
    }

    /// The ledger's unhandled counts, by line key.
    static func counts(_ ledger: DeliveryLedger) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for line in ledger.allLines() where line.isCount {
            counts[line.key] = try JSONParser.parse(line.json)["count"]?.integerValue
        }
        return counts
    }
}
