import BeaconRulesHTTP
import BeaconRulesService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@Suite("beaconrules http")
struct HTTPFrontTests {
    var golden: [String] { Paths.read(Paths.fixture("museum-day.records.jsonl")).split(separator: "\n").map(String.init) }
    var traceLines: [String] { Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init) }

    func app() throws -> some ApplicationProtocol {
        let rules = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        return buildApplication(rules: rules, settings: HTTPSettings(port: 0), logger: Logger(label: "test"))
    }

    /// The golden records of the trace line `index` (the records whose event is its id).
    func goldenRecords(of index: Int) -> [String] {
        let id = traceLines[index].firstMatch(of: /"id":"([^"]+)"/).map { String($0.output.1) } ?? ""
        return golden.filter { $0.contains("\"event\":\"\(id)\"") }
    }

    @Test func postEventsAnswersOneEventWithItsRecordsInSpecOrder() async throws {
        try await app().test(.router) { client in
            for index in 0..<3 {
                try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: traceLines[index])) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "[" + goldenRecords(of: index).joined(separator: ",") + "]\n")
                }
            }
        }
    }

    @Test func anEventThatIsNotOneIs400WithReplaysMessage() async throws {
        let bad = #"{"device":"anna","type":"enter"}"#
        let cli = try CommandRunner.run(["replay"], stdin: bad + "\n")
        try await app().test(.router) { client in
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: bad)) { response in
                #expect(response.status == .badRequest)
                let body = String(buffer: response.body)
                let message = try #require(body.firstMatch(of: /"error":("[^"]*")/)).output.1
                #expect(cli.stderr.contains("\"message\":\(message)"), "\(body) vs \(cli.stderr)")
            }
        }
    }

    @Test func ndjsonIsAnsweredLineForLineAsOnTheSocket() async throws {
        let body = [traceLines[0], "", "not json", traceLines[1]].joined(separator: "\n") + "\n"
        try await app().test(.router) { client in
            try await client.execute(uri: "/events", method: .post, headers: [.contentType: "application/x-ndjson"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                let replies = String(buffer: response.body).split(separator: "\n").map(String.init)
                #expect(replies.count == 4)
                #expect(replies[0] == #"{"ok":true,"event":"ev-01","records":["# + goldenRecords(of: 0).joined(separator: ",") + "]}")
                #expect(replies[1] == #"{"ok":false,"line":2,"error":"blank line; expected one JSON event object"}"#)
                #expect(replies[2].hasPrefix(#"{"ok":false,"line":3,"error":"#))
                #expect(replies[3] == #"{"ok":true,"event":"ev-02","records":["# + goldenRecords(of: 1).joined(separator: ",") + "]}")
            }
        }
    }

    @Test func anEventSentAgainIsAnsweredAsBefore() async throws {
        let noID = #"{"device":"anna","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00+02:00"}"#
        try await app().test(.router) { client in
            let first = try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: noID)) { String(buffer: $0.body) }
            let second = try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: noID)) { String(buffer: $0.body) }
            #expect(first.contains("museum-welcome"))
            #expect(second == first)
        }
    }

    @Test func postResponsesTakesAResponseToADeliveredRecord() async throws {
        let response = #"{"id":"r-01","type":"response","device":"anna","notification":"museum-welcome:anna:ev-01","action":"present","time":"2026-06-05T10:00:02+02:00"}"#
        try await app().test(.router) { client in
            try await client.execute(uri: "/responses", method: .post, body: ByteBuffer(string: response)) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/events", method: .post, body: ByteBuffer(string: traceLines[0])) { #expect($0.status == .ok) }
            try await client.execute(uri: "/responses", method: .post, body: ByteBuffer(string: response)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "[]\n")
            }
            try await client.execute(uri: "/responses", method: .post, body: ByteBuffer(string: traceLines[0])) { #expect($0.status == .badRequest) }
        }
    }

    @Test func getCampaignsListsWhatIsLoaded() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/campaigns", method: .get) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.hasPrefix(#"{"campaigns":[{"eid":"#))
                #expect(body.contains(#""eid":"museum-welcome""#))
                #expect(body.hasSuffix("\"warnings\":[]}\n"))
            }
        }
    }

    @Test func postExplainAnswersAsExplainJson() async throws {
        let cli = try CommandRunner.run(["explain", "--json", traceLines[0]])
        try await app().test(.router) { client in
            try await client.execute(uri: "/explain", method: .post, body: ByteBuffer(string: traceLines[0])) { response in
                #expect(response.status == .ok)
                let expected = "[" + cli.stdout.split(separator: "\n").joined(separator: ",") + "]\n"
                #expect(String(buffer: response.body).replacingOccurrences(of: Paths.root.path + "/", with: "") == expected)
            }
        }
    }

    @Test func theRealBinaryAnswersOverLoopbackAndStopsOnSIGTERM() async throws {
        let state = Paths.temporaryDirectory() + "/http.state"
        try await ServerProcess.with(["--state", state], command: "http") { server in
            let eventFile = Paths.temporaryDirectory() + "/event.json"
            try traceLines[0].write(toFile: eventFile, atomically: true, encoding: .utf8)
            let curl = try Self.curl(["-sS", "-d", "@" + eventFile, "127.0.0.1:\(server.port)/events"])
            #expect(curl == "[" + goldenRecords(of: 0).joined(separator: ",") + "]\n")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
            // The state was committed before the answer: replay with it answers ev-01 the same.
            let replay = try CommandRunner.run(["replay", "--state", state], stdin: traceLines[0] + "\n")
            #expect(replay.stdout == goldenRecords(of: 0).map { $0 + "\n" }.joined())
        }
    }

    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
