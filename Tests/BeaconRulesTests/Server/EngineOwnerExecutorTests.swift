@testable import BeaconRulesServer
import Foundation
import Testing

/// An actor whose executor is an `EngineOwner` on a thread of its own (as `RulesService` is).
actor OwnedProbe {
    let owner = EngineOwner(threadNamed: "rules-probe")

    nonisolated var unownedExecutor: UnownedSerialExecutor { owner.asUnownedSerialExecutor() }

    /// The name of the thread the call runs on.
    func threadName() -> String? { Thread.current.name }
}

@Suite("EngineOwner as an actor's executor")
struct EngineOwnerExecutorTests {
    @Test func anActorOnAnOwnerRunsOnTheOwnersThreadNotOnTheCooperativePool() async {
        let probe = OwnedProbe()
        #expect(await probe.threadName() == "rules-probe")
    }

    @Test func callsFromManyTasksAtOnceAllRunOnTheOwnersThread() async {
        let probe = OwnedProbe()
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { await probe.threadName() } }
            return await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(names == ["rules-probe"])
    }
}
