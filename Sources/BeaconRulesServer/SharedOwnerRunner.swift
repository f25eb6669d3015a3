import BeaconRules
import NIOCore

/// Runs the `SharedOwnerLoop` on the owner's thread, async: an actor whose executor is the
/// `EngineOwner`, so its work runs there, and while a query is in flight the thread runs
/// whatever else comes (a task resumed, more jobs queued). Jobs are taken in arrival order and
/// applied strictly one transaction at a time: `take` only queues, and one drain at a time
/// applies the queue, so a transaction never starts while another is awaiting the database.
actor SharedOwnerRunner<Store: SuppressionStore & SharedStateLog> {
    /// One piece of work, in arrival order.
    private enum Work {
        case jobs([EngineOwner.Job])
        case tick
    }

    private let executor: UnownedSerialExecutor
    private let loop: SharedOwnerLoop<Store>
    private var queue: [Work] = []
    /// A drain is running (a transaction may be awaiting the database).
    private(set) var isDraining = false

    /// The runner of `loop` on `executor` (the owner's, on its thread).
    init(loop: sending SharedOwnerLoop<Store>, executor: UnownedSerialExecutor) {
        self.loop = loop
        self.executor = executor
    }

    /// The owner's thread.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    /// Nothing is pending on the clock.
    var isIdle: Bool { loop.isIdle }

    /// Queues `jobs` after whatever came before.
    func take(_ jobs: [EngineOwner.Job]) {
        queue.append(.jobs(jobs))
        drainIfIdle()
    }

    /// A clock tick; none while work is queued or running (its transactions move the clock on).
    func tick() {
        guard !isDraining else { return }
        queue.append(.tick)
        drainIfIdle()
    }

    /// Ends the connection; called once the queue is drained.
    func close() {
        loop.close()
    }

    private func drainIfIdle() {
        guard !isDraining else { return }
        isDraining = true
        Task { await drain() }
    }

    /// Applies the queue until it is empty: the jobs queued meanwhile go together (one
    /// transaction for all, as the owner's thread gathers them), each transaction's replies sent
    /// once it is committed.
    private func drain() async {
        while !queue.isEmpty {
            let work = queue
            queue.removeAll()
            var jobs: [EngineOwner.Job] = []
            for case .jobs(let more) in work { jobs += more }
            if jobs.isEmpty {
                await loop.tick()
                continue
            }
            for step in SharedOwnerSteps.steps(jobs) {
                switch step {
                case .transaction(let transaction):
                    ReplyDelivery.send(await loop.process(transaction))
                case .reload(let campaigns, let locales, let continuation):
                    loop.reload(campaigns: campaigns, locales: locales)
                    continuation.resume()
                }
            }
        }
        isDraining = false
    }
}
