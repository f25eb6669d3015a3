@testable import BeaconRules
@testable import BeaconRulesPostgres
import Foundation
import Logging
import Testing

/// The saved ledger's own sweep on a shared database: deliveries no instance holds in memory (the
/// instance that delivered them stopped) are forgotten when their window ends, with tombstones
/// as the ledger writes them, and the tombstones two windows later.
extension ServePostgresTests {
    @Test func deliveriesNoInstanceHoldsAreForgottenInTheDatabaseTombstonesTwoWindowsLater() async throws {
        let store = try await Self.store("ledger_sweep")
        defer { store.close() }
        let delivery = "00000000000000aa", alias = "00000000000000bb", click = "00000000000000cc"
        func line(_ key: String, _ json: String) -> DeliveryLedger.Line {
            DeliveryLedger.Line(key: key, json: Array(json.utf8), delivery: delivery)
        }
        // Saved by an instance that is gone: a delivery fired at 1,000 s, a rescheduled id, a click.
        try await store.begin()
        try store.saveLedger([
            line("0:" + delivery, #"{"delivery":"\#(delivery)","campaign":"c1","eid":"c1","language":"de","locale":null,"beacon":"\#(MuseumTrace.beacons[0])","trigger":"enter","state":1,"fired":1000,"clicks":[]}"#),
            line("1:" + alias, #"{"alias":"\#(alias)","of":"\#(delivery)"}"#),
            line("2:" + click, #"{"handled":"\#(click)","of":"\#(delivery)"}"#),
        ])
        try await store.commit()
        let window: Int64 = 3_600_000, end: Int64 = 1_000_000 + window
        func sweep(at cutoff: Int64) async throws -> Int {
            try await store.begin()
            let forgotten = try await store.sweepSavedDeliveries(windowEndedBy: cutoff, window: window, limit: 100)
            try await store.commit()
            return forgotten
        }
        func keys() throws -> String { try PostgresCluster.shared().psql("ledger_sweep", "SELECT key FROM ledger ORDER BY key") }

        #expect(try await sweep(at: end - 1) == 0)
        #expect(try keys() == "0:\(delivery)\n1:\(alias)\n2:\(click)\n")
        #expect(try await sweep(at: end) == 1)
        #expect(try keys() == "4:\(delivery)\n4:\(alias)\n")
        // An instance that starts now refuses a response to either id as late.
        let ledger = try await store.readLedger()
        #expect(ledger.forgottenDelivery(DeliveryLedger.key("c1:d:e")) == nil)
        #expect(ledger.forgottenDelivery(UInt64(delivery, radix: 16)!) == 1000)
        #expect(ledger.forgottenDelivery(UInt64(alias, radix: 16)!) == 1000)
        // Tombstones go two windows after they were written.
        #expect(try await sweep(at: end + 2 * window - 1) == 0)
        #expect(try keys() == "4:\(delivery)\n4:\(alias)\n")
        _ = try await sweep(at: end + 2 * window)
        #expect(try keys() == "")
    }
}
