@testable import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging
import Testing

/// A device read outside the transaction's batch (the presence clock firing for a device no line
/// of the batch named) is not locked late, out of hash order: the read is a miss, the attempt is
/// rolled back, and the transaction runs again with that device locked with the others, in hash
/// order. Nothing of the first attempt is saved; the second decides the same and commits.
extension ServePostgresTests {
    @Test func aDeviceReadOutsideTheBatchIsLockedInOrderOnARetryAndOnlyTheRetryCommits() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("late_locks"))
        let campaign = CampaignID(canonical: "c1")
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { store.close() }
        var attempts = 0, retries = 0
        var seen: [Timestamp?] = []
        try await store.transaction(reading: TransactionReads(devices: ["dev-a"]), {
            attempts += 1
            store.recordFiring(device: "dev-a", campaign: campaign, at: Timestamp(milliseconds: 1))
            // The clock fires for dev-b, which the batch did not name.
            seen.append(store.lastFiring(device: "dev-b", campaign: campaign))
            store.recordFiring(device: "dev-b", campaign: campaign, at: Timestamp(milliseconds: 1))
        }, retry: { retries += 1 })
        #expect(attempts == 2)
        #expect(retries == 1)
        #expect(seen == [nil, nil])
        #expect(try cluster.psql("late_locks", "SELECT device, time FROM firing ORDER BY device") == "dev-a|1\ndev-b|1\n")
    }

    @Test func aTransactionThatReadWhatWasNotPreparedNeverCommits() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("unprepared"))
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { store.close() }
        try await store.begin()
        store.recordFiring(device: "dev-a", campaign: CampaignID(canonical: "c1"), at: Timestamp(milliseconds: 1))
        await #expect(throws: StoreError.self) { try await store.commit() }
        #expect(try cluster.psql("unprepared", "SELECT count(*) FROM firing") == "0\n")
    }

    /// Two instances' batches of the same devices, at once: each locks them in hash order, so
    /// both commit, one after the other.
    @Test func twoInstancesLockingTheSameDevicesBothCommit() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("lock_order"))
        async let first = Self.batch(of: ["dev-a", "dev-b"], at: 1, location: location)
        async let second = Self.batch(of: ["dev-b", "dev-a"], at: 2, location: location)
        let results = try await [first, second]
        #expect(results == ["committed", "committed"])
        #expect(try cluster.psql("lock_order", "SELECT count(*) FROM firing") == "2\n")
    }

    /// A transaction as an instance runs it: its devices locked in one go, a firing of each.
    static func batch(of devices: [String], at time: Int64, location: PostgresLocation) async throws -> String {
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { store.close() }
        do {
            try await store.transaction(reading: TransactionReads(devices: devices), {
                for device in devices { store.recordFiring(device: device, campaign: CampaignID(canonical: "c1"), at: Timestamp(milliseconds: time)) }
            }, retry: {})
        } catch {
            return "\(error)"
        }
        return "committed"
    }
}
