@testable import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesStore
import Foundation
import Logging
import Testing

/// Late locks: a device locked after the transaction's batch (the presence clock firing for a
/// device no line of the batch named) is locked out of hash order, so it can deadlock with
/// another instance's batch. PostgreSQL breaks the deadlock: one transaction fails whole (its
/// lines are answered with an error and resent), the other commits.
extension ServePostgresTests {
    @Test func aLateLockOutOfOrderCanDeadlockAndCostsOneTransactionWholeNeverHalf() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("late_locks"))
        // Two devices, named by their lock order.
        let ordered = PostgresStateStore.lockKey("dev-a") < PostgresStateStore.lockKey("dev-b")
        let (low, high) = ordered ? ("dev-a", "dev-b") : ("dev-b", "dev-a")
        let campaign = CampaignID(canonical: "c1")

        // The presence holder's transaction: its batch locked `high`, and changed its state.
        let holder = try PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { holder.close() }
        try holder.begin()
        try holder.lock(devices: [high], answersOf: [])
        holder.recordFiring(device: high, campaign: campaign, at: Timestamp(milliseconds: 1))

        // Another instance's batch of both devices, on a thread of its own: it takes `low`, then
        // waits for `high`.
        let other = Task {
            await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
                Thread.detachNewThread {
                    done.resume(returning: Self.batch(of: [low, high], campaign: campaign, at: 2, location: location))
                }
            }
        }
        var waiting = false
        for _ in 0..<500 where !waiting {
            waiting = try cluster.psql("late_locks", "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") == "1\n"
            if !waiting { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(waiting)

        // The presence clock fires for `low`: locked now, out of hash order.
        _ = holder.lastFiring(device: low, campaign: campaign)
        holder.recordFiring(device: low, campaign: campaign, at: Timestamp(milliseconds: 1))
        var holderResult = "committed"
        do { try holder.commit() } catch { holderResult = "\(error)" }
        let otherResult = await other.value

        let results = [holderResult, otherResult]
        #expect(results.filter { $0 == "committed" }.count == 1, "\(results)")
        #expect(results.contains { $0.contains("deadlock detected (SQLSTATE 40P01)") }, "\(results)")
        // Only the committed transaction's changes are saved, both of its devices.
        let time = holderResult == "committed" ? 1 : 2
        #expect(try cluster.psql("late_locks", "SELECT device, time FROM firing ORDER BY device") == "dev-a|\(time)\ndev-b|\(time)\n")
    }

    /// A transaction as an instance runs it: its devices locked in one go, a firing of each.
    static func batch(of devices: [String], campaign: CampaignID, at time: Int64, location: PostgresLocation) -> String {
        do {
            let store = try PostgresStateStore(location: location, logger: Logger(label: "test"))
            defer { store.close() }
            try store.begin()
            try store.lock(devices: devices, answersOf: [])
            for device in devices { store.recordFiring(device: device, campaign: campaign, at: Timestamp(milliseconds: time)) }
            do { try store.commit() } catch {
                return "\(error)"
            }
            return "committed"
        } catch {
            return "\(error)"
        }
    }
}
