import Foundation
import Testing

/// Presence (SPEC section 7) on a shared database: its state is one whole, so one instance at a
/// time takes presence input; another is refused with an error saying so, until the first one's
/// connection ends.
extension ServePostgresTests {
    @Test func presenceInputGoesToOneInstanceAtATimeAndMovesWhenItStops() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("presence")
        let options = ["--state", url, "--presence", "--exit-timeout", "1", "--max-lateness", "0"]
        let beacon = MuseumTrace.beacons[0]
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func sighting(_ id: String, at ms: Int64) -> String {
            #"{"id":"\#(id)","type":"sighting","device":"scanner-1","beacon":"\#(beacon)","rssi":-70,"time":\#(ms)}"#
        }
        let a = try await ServerProcess.start(options)
        let b = try await ServerProcess.start(options)
        let first = try await LineClient.exchange(port: a.port, lines: [sighting("s-1", at: now)])
        let refused = try await LineClient.exchange(port: b.port, lines: [sighting("s-2", at: now + 100)])
        let events = try await LineClient.exchange(port: b.port, lines: MuseumTrace.devices(1, events: 2, prefix: "pres")[0])
        let second = try await LineClient.exchange(port: a.port, lines: [sighting("s-2", at: now + 100)])
        await a.stop()
        // A's connection ends with it; B takes presence over at its next presence line.
        var taken = try await LineClient.exchange(port: b.port, lines: [sighting("s-3", at: now + 200)])
        for n in 0..<50 where taken.first?.contains("another instance") == true {
            try await Task.sleep(for: .milliseconds(100))
            taken = try await LineClient.exchange(port: b.port, lines: [sighting("s-3-\(n)", at: now + 200)])
        }
        await b.stop()

        #expect(first.first?.hasPrefix(#"{"ok":true,"event":"s-1""#) == true, "\(first)")
        #expect(refused.first?.contains("is taken by another instance on this shared state") == true, "\(refused)")
        #expect(refused.first?.hasPrefix(#"{"ok":false"#) == true, "\(refused)")
        // Beacon events (no flicker control) do not go through presence: any instance takes them.
        #expect(events.allSatisfy { $0.hasPrefix(#"{"ok":true"#) }, "\(events)")
        #expect(second.first?.hasPrefix(#"{"ok":true,"event":"s-2""#) == true, "\(second)")
        #expect(taken.first?.hasPrefix(#"{"ok":true"#) == true, "\(taken)")
        #expect(try cluster.psql("presence", "SELECT count(*) FROM presence") == "1\n")
    }
}
