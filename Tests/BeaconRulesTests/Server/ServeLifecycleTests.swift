import Foundation
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `serve` and its signals: SIGTERM (graceful shutdown) and SIGHUP (reload).
@Suite("serve: signals")
struct ServeLifecycleTests {
    @Test func sigtermAnswersEveryLineReadKeepsItAndExitsZero() async throws {
        let directory = Paths.temporaryDirectory()
        let state = directory + "/state.db"
        let lines = MuseumTrace.interleave(MuseumTrace.devices(10, events: 300, prefix: "term"))
        let oracle = try ReplayOracle(lines: lines, directory: directory)
        let server = try await ServerProcess.start(["--state", state])
        // The requests keep streaming while the server shuts down; it stops reading them.
        var replies: [String] = []
        do {
            replies = try await LineClient.streamUntilClosed(port: server.port, lines: lines) { count in
                if count == 1 { server.signal(SIGTERM) }
            }
        } catch {
            Issue.record("the connection was reset instead of closed after the last reply: \(error)")
        }
        let status = await server.waitForExit()
        if status == nil { await server.crash() }
        #expect(status == 0)
        #expect(replies.count >= 1)
        let expected = try lines.prefix(replies.count).map { try #require(oracle.replies[try eventID($0)]) }
        #expect(replies == expected)
        // Every answered line is in the state, and nothing that was not answered.
        #expect(try snapshot(state).answers == replies.count)
        #expect(server.log.contains("stopped accepting"))
        print("SIGTERM after the first reply: \(replies.count) of \(lines.count) lines answered")
    }

    @Test func sighupReloadsCampaignsAndABrokenFileKeepsTheOldSet() async throws {
        let directory = Paths.temporaryDirectory()
        let campaigns = directory + "/campaigns"
        try FileManager.default.createDirectory(atPath: campaigns, withIntermediateDirectories: true)
        let file = campaigns + "/hup.json"
        try campaign(subject: "Version 1").write(toFile: file, atomically: true, encoding: .utf8)
        try await ServerProcess.with(["--campaigns", campaigns, "--locales", Paths.locales]) { server in
            try await LineClient.withConnection(port: server.port) { session in
                try await session.send([event("h-1")])
                #expect(try await session.receive()?.contains("Version 1") == true)

                try campaign(subject: "Version 2").write(toFile: file, atomically: true, encoding: .utf8)
                #expect(await reload(server, until: "reloaded", count: 1))
                try await session.send([event("h-2")])
                #expect(try await session.receive()?.contains("Version 2") == true)

                try "{\"eid\": \"hup\", \"trigger\": ".write(toFile: file, atomically: true, encoding: .utf8)
                #expect(await reload(server, until: "reload failed", count: 1))
                try await session.send([event("h-3"), event("h-1")])
                #expect(try await session.receive()?.contains("Version 2") == true, "the old set is still served")
                #expect(try await session.receive()?.contains("Version 1") == true, "a repeated id keeps its first answer")
            }
            await server.stop()
            #expect(server.log.contains("hup.json"), "the log names the broken file")
            #expect(server.log.components(separatedBy: "connection opened").count - 1 == 1, "one connection, never dropped")
        }
    }

    private func campaign(subject: String) -> String {
        #"{"eid": "hup", "trigger": 1, "type": 1, "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000001"], "content": {"subject": "\#(subject)", "body": "b"}}"#
    }

    private func event(_ id: String) -> String {
        #"{"id":"\#(id)","device":"d-\#(id)","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T10:00:00Z"}"#
    }

    /// Sends SIGHUP until the log shows `text` `count` times: the first one may arrive before the
    /// server has its handler in place, and is then ignored. At most 40 tries, 0.5 s apart.
    private func reload(_ server: ServerProcess, until text: String, count: Int) async -> Bool {
        for _ in 0..<40 {
            server.signal(SIGHUP)
            if await server.waitForLog(text, count: count, seconds: 0.5) { return true }
        }
        return false
    }
}
