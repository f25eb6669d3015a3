@testable import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesServer
import BeaconRulesStore
import Logging
import NIOCore
import NIOPosix
import Testing

/// `serve --state postgres://` runs its engine on an event loop of its own and makes the store's
/// connection there (`SharedStateLog.connect(on:)`): a transaction, called the way the server
/// calls it (through `SharedStateLog`, from generic code, on an actor whose executor is that
/// loop), runs every step on the loop, its attempts (the engine) after each round trip included.
/// (In a release build the store's steps once resumed on Swift's global executor after their
/// first round trip; the store now checks, before each attempt, that it runs on the loop.)
extension ServePostgresTests {
    @Test func aTransactionRunsOnItsOwnersLoopAfterEveryRoundTripItsRetryIncluded() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("owner_loop"))
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        store.connect(on: loop)
        let owner = LoopOwner(loop: loop, log: store)
        // The connection and the loop end whether or not the transaction throws.
        let seen: [Bool]
        do {
            seen = try await owner.transaction()
        } catch {
            await owner.close()
            try await group.shutdownGracefully()
            throw error
        }
        await owner.close()
        try await group.shutdownGracefully()
        // Two attempts (the first read a device the batch did not name), each on the loop.
        #expect(seen == [true, true])
    }
}

/// An actor on an event loop holding a store, as the server's `SharedOwnerRunner` is on its
/// owner's loop, its store known by the protocols only.
private actor LoopOwner<Log: SuppressionStore & SharedStateLog> {
    let loop: any EventLoop
    let log: Log
    init(loop: any EventLoop, log: sending Log) {
        self.loop = loop
        self.log = log
    }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    /// One transaction through the protocol (its attempt reads a device the batch did not name,
    /// so it runs twice); whether each attempt ran on the loop.
    func transaction() async throws -> [Bool] {
        var seen: [Bool] = []
        let campaign = CampaignID(canonical: "c1")
        try await log.transaction(reading: TransactionReads(devices: ["dev-a"]), {
            seen.append(loop.inEventLoop)
            _ = log.lastFiring(device: "dev-a", campaign: campaign)
            _ = log.lastFiring(device: "dev-b", campaign: campaign)
        }, retry: {})
        return seen
    }

    func close() { log.close() }
}
