@testable import BeaconRulesServer
import Testing

/// An actor whose executor is an `EngineOwner` on a thread of its own (as `RulesService` is).
actor OwnedProbe {
    let owner = EngineOwner(threadNamed: "rules-probe")

    nonisolated var unownedExecutor: UnownedSerialExecutor { owner.asUnownedSerialExecutor() }

    /// Whether the call runs on the owner's thread.
    func runsOnTheOwner() -> Bool { owner.isCurrent }
}

@Suite("EngineOwner as an actor's executor")
struct EngineOwnerExecutorTests {
    @Test func anActorOnAnOwnerRunsOnTheOwnersThreadNotOnTheCooperativePool() async {
        let probe = OwnedProbe()
        #expect(await probe.runsOnTheOwner())
        #expect(!probe.owner.isCurrent)
    }

    @Test func callsFromManyTasksAtOnceAllRunOnTheOwnersThread() async {
        let probe = OwnedProbe()
        let onTheOwner = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 { group.addTask { await probe.runsOnTheOwner() } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(onTheOwner == Array(repeating: true, count: 64))
    }
}
