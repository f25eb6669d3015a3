@testable import BeaconRules
@testable import BeaconRulesServer
@testable import BeaconRulesStore
import NIOCore
import NIOPosix
import Testing

/// On a shared database (a log that locks devices), the owner cuts what it took from the queue
/// into transactions of at most `linesPerLockingTransaction` lines, never splitting a job and
/// keeping the order; with a file, everything is one transaction (group commit as before).
@Suite("EngineOwner: transactions on a shared database")
struct LockingTransactionTests {
    static func job(_ lines: Int) -> EngineOwner.Job {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: ByteBuffer.self)
        promise.succeed(ByteBuffer())
        let requests = (0..<lines).map { RequestLine.rejected(line: $0 + 1, message: "x") }
        return .lines(requests, PromiseReplyTarget(promise: promise))
    }

    static func sizes(_ transactions: [[EngineOwner.Job]]) -> [[Int]] {
        transactions.map { $0.map { if case .lines(let lines, _) = $0 { lines.count } else { -1 } } }
    }

    @Test func aBacklogIsCutIntoBoundedTransactionsInOrder() {
        let cap = OwnerLoop<InMemorySuppressionStore, MemoryStateLog>.linesPerLockingTransaction
        let jobs = [Self.job(600), Self.job(400), Self.job(100), Self.job(cap + 5), Self.job(1)]
        let cut = OwnerLoop<InMemorySuppressionStore, MemoryStateLog>.transactions(jobs, locking: true)
        #expect(Self.sizes(cut) == [[600, 400], [100], [cap + 5], [1]])
        let whole = OwnerLoop<InMemorySuppressionStore, MemoryStateLog>.transactions(jobs, locking: false)
        #expect(Self.sizes(whole) == [[600, 400, 100, cap + 5, 1]])
    }
}
