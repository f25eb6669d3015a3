import Foundation
import Testing

/// `serve` with the presence layer, against the real binary: sightings accepted, pending exits
/// confirmed on the wall clock, and kept in the state across a restart.
@Suite("serve: presence")
struct ServePresenceTests {
    let beacon = "b9407f30f5f8466eaff925556b57fe6d0010000001"

    func line(_ type: String, id: String, at ms: Int64) -> String {
        #"{"id":"\#(id)","device":"d-p","type":"\#(type)","beacon":"\#(beacon)","time":\#(ms)}"#
    }

    @Test func pendingExitSurvivesARestartAndFiresOnTheWallClockIntoTheOutbox() async throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/serve.db"
        let options = ["--state", state, "--presence", "--exit-timeout", "1", "--max-lateness", "0"]
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var server = try await ServerProcess.start(options)
        let replies = try await LineClient.exchange(port: server.port, lines: [
            line("enter", id: "p-1", at: now), line("exit", id: "p-2", at: now + 100),
            #"{"type":"sighting","device":"scanner-1","beacon":"\#(beacon)","rssi":-70,"time":\#(now + 200)}"#,
        ])
        // The stop comes at once, before the exit can be confirmed (1 s after it).
        await server.stop()
        #expect(replies[0].contains(#""campaign":"museum-welcome""#))
        #expect(replies[1] == #"{"ok":true,"event":"p-2","records":[]}"#)
        #expect(replies[2].hasPrefix(#"{"ok":true,"event":"auto-"#))
        server = try await ServerProcess.start(options)
        var outbox = ""
        // Poll (no timing asserted): the exit is confirmed by the clock of the restarted server.
        for _ in 0..<200 where !outbox.contains(#""trigger":"exit""#) {
            outbox = try await LineClient.exchange(port: server.port, lines: [#"{"type":"outbox","after":0}"#])[0]
            if !outbox.contains(#""trigger":"exit""#) { try await Task.sleep(for: .milliseconds(100)) }
        }
        let tail = try await LineClient.exchange(port: server.port, lines: [#"{"type":"outbox","after":1}"#])[0]
        await server.stop()
        #expect(outbox.hasPrefix(#"{"ok":true,"outbox":[{"seq":1,"records":["#))
        #expect(outbox.contains(#""id":"museum-goodbye:d-p:p-2""#))
        #expect(outbox.hasSuffix(#""next":1}"#))
        #expect(tail == #"{"ok":true,"outbox":[],"next":1}"#)
    }
}
