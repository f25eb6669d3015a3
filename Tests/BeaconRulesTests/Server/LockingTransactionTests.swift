@testable import BeaconRules
@testable import BeaconRulesServer
@testable import BeaconRulesStore
import NIOCore
import NIOPosix
import Testing

/// On a shared database, the owner cuts what it took from the queue into transactions of at most
/// `linesPerTransaction` lines, never splitting a job and keeping the order, and a reload goes
/// between two transactions (a transaction may run twice, with one campaign set).
@Suite("EngineOwner: transactions on a shared database")
struct LockingTransactionTests {
    static func job(_ lines: Int) -> EngineOwner.Job {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: ByteBuffer.self)
        promise.succeed(ByteBuffer())
        let requests = (0..<lines).map { RequestLine.rejected(line: $0 + 1, message: "x") }
        return .lines(requests, PromiseReplyTarget(promise: promise))
    }

    static func sizes(_ steps: [SharedOwnerSteps.Step]) -> [[Int]] {
        steps.map { step in
            guard case .transaction(let jobs) = step else { return [-1] }
            return jobs.map { if case .lines(let lines, _) = $0 { lines.count } else { -1 } }
        }
    }

    @Test func aBacklogIsCutIntoBoundedTransactionsInOrder() {
        let cap = SharedOwnerSteps.linesPerTransaction
        let jobs = [Self.job(600), Self.job(400), Self.job(100), Self.job(cap + 5), Self.job(1)]
        #expect(Self.sizes(SharedOwnerSteps.steps(jobs)) == [[600, 400], [100], [cap + 5], [1]])
    }
}
