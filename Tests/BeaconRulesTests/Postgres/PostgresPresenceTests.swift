import BeaconRules
@testable import BeaconRulesPostgres
import Foundation
import Logging
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
        // At the wall clock when sent: an instance moves presence on to its wall clock.
        func sighting(_ id: String) -> String {
            #"{"id":"\#(id)","type":"sighting","device":"scanner-1","beacon":"\#(beacon)","rssi":-70,"time":\#(Int64(Date().timeIntervalSince1970 * 1000))}"#
        }
        func enter(_ id: String) -> String {
            #"{"id":"\#(id)","device":"d-1","type":"enter","beacon":"\#(beacon)","time":\#(Int64(Date().timeIntervalSince1970 * 1000))}"#
        }
        let a = try await ServerProcess.start(options)
        let b = try await ServerProcess.start(options)
        let first = try await LineClient.exchange(port: a.port, lines: [sighting("s-1")])
        let refused = try await LineClient.exchange(port: b.port, lines: [sighting("s-2"), enter("e-1")])
        let second = try await LineClient.exchange(port: a.port, lines: [sighting("s-2"), enter("e-1")])
        await a.stop()
        // A's connection ends with it; B takes presence over at its next presence line.
        var taken = try await LineClient.exchange(port: b.port, lines: [sighting("s-3")])
        for n in 0..<50 where taken.first?.contains("another instance") == true {
            try await Task.sleep(for: .milliseconds(100))
            taken = try await LineClient.exchange(port: b.port, lines: [sighting("s-3-\(n)")])
        }
        await b.stop()

        #expect(first.first?.hasPrefix(#"{"ok":true,"event":"s-1""#) == true, "\(first)")
        // Under --presence (flicker control) beacon events are presence input too.
        #expect(refused.count == 2)
        #expect(refused.allSatisfy { $0.hasPrefix(#"{"ok":false"#) && $0.contains("is taken by another instance on this shared state") }, "\(refused)")
        #expect(second.allSatisfy { $0.hasPrefix(#"{"ok":true"#) }, "\(second)")
        #expect(taken.first?.hasPrefix(#"{"ok":true"#) == true, "\(taken)")
        #expect(try cluster.psql("presence", "SELECT count(*) FROM presence") == "1\n")
    }
}

extension ServePostgresTests {
    @Test func theHolderOfPresenceReadsItsStateAgainAfterARollback() async throws {
        let store = try await Self.store("presence_claim")
        defer { store.close() }
        var presence = TransactionReads()
        presence.presence = true
        // Not asked for before the transaction: a miss (the transaction would run again).
        try await store.begin()
        #expect(try store.claimPresence() == .refused)
        #expect(store.takeMisses().presence)
        try await store.prepare(presence)
        #expect(try store.claimPresence() == .gained)
        try await store.commit()
        try await store.begin()
        #expect(try store.claimPresence() == .held)
        // What the rolled-back transaction did to presence in memory was never saved.
        await store.rollback()
        try await store.begin()
        try await store.prepare(presence)
        #expect(try store.claimPresence() == .gained)
        #expect(try store.claimPresence() == .held)
        try await store.commit()

        let other = try await PostgresStateStore(location: store.location, logger: Logger(label: "test"))
        defer { other.close() }
        try await other.begin()
        try await other.prepare(presence)
        #expect(try other.claimPresence() == .refused)
        #expect(other.takeMisses().isEmpty)
        await other.rollback()
    }
}
