import BeaconRules
import NIOCore

/// What a `SharedOwnerRunner` applies its jobs to, on the owner's thread: one app's
/// `SharedOwnerLoop`, or every app's (`SharedAppLoops`, `serve --apps`). Its calls are the
/// runner's, one at a time (`nonisolated(nonsending)`: an awaited one runs on the runner's
/// executor, the owner's thread).
protocol SharedDrain: AnyObject {
    /// Nothing is pending on the clock.
    var isIdle: Bool { get }
    /// Applies `jobs` (lines and reloads, in order) in transactions, and sends each
    /// transaction's replies once they are durable.
    nonisolated(nonsending) func drain(_ jobs: [EngineOwner.Job]) async
    /// Moves the clock on (presence's pending exits), in a transaction.
    nonisolated(nonsending) func tick() async
    /// Ends the connections.
    func close()
}

/// Runs a `SharedDrain` on the owner's thread, async: an actor whose executor is the
/// `EngineOwner`, so its work runs there, and while a query is in flight the thread runs
/// whatever else comes (a task resumed, more jobs queued). Jobs are taken in arrival order and
/// applied strictly one drain at a time: `take` only queues, and one drain at a time applies the
/// queue, so a transaction never starts while another is awaiting the database.
actor SharedOwnerRunner<Drain: SharedDrain> {
    /// One piece of work, in arrival order.
    private enum Work {
        case jobs([EngineOwner.Job])
        case tick
    }

    private let executor: UnownedSerialExecutor
    private let target: Drain
    private var queue: [Work] = []
    /// A drain is running (a transaction may be awaiting the database).
    private(set) var isDraining = false
    /// Called once the running drain ends (`whenDrained`).
    private var drained: [@Sendable () -> Void] = []

    /// The runner of `target` on `executor` (the owner's, on its thread).
    init(_ target: sending Drain, executor: UnownedSerialExecutor) {
        self.target = target
        self.executor = executor
    }

    /// The owner's thread.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    /// Nothing is pending on the clock.
    var isIdle: Bool { target.isIdle }

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

    /// Ends the connections; called once the queue is drained.
    func close() {
        target.close()
    }

    /// Calls `body` once nothing is queued or running: at once when idle, otherwise when the
    /// running drain has applied everything (what is queued meanwhile too).
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        if isDraining { drained.append(body) } else { body() }
    }

    private func drainIfIdle() {
        guard !isDraining else { return }
        isDraining = true
        Task { await drain() }
    }

    /// Applies the queue until it is empty: the jobs queued meanwhile go together (as the owner's
    /// thread gathers them), each transaction's replies sent once it is committed.
    private func drain() async {
        while !queue.isEmpty {
            let work = queue
            queue.removeAll()
            var jobs: [EngineOwner.Job] = []
            for case .jobs(let more) in work { jobs += more }
            if jobs.isEmpty {
                await target.tick()
            } else {
                await target.drain(jobs)
            }
        }
        isDraining = false
        let waiting = drained
        drained.removeAll()
        for body in waiting { body() }
    }
}

extension SharedOwnerLoop: SharedDrain {
    /// The jobs in transactions, each one's replies sent once it is committed.
    nonisolated(nonsending) func drain(_ jobs: [EngineOwner.Job]) async {
        await drain(jobs) { ReplyDelivery.send($0) }
    }

    /// The jobs in transactions of at most `SharedOwnerSteps.linesPerTransaction` lines, reloads
    /// between them; each transaction's replies to `deliver` once it is committed.
    nonisolated(nonsending) func drain(_ jobs: [EngineOwner.Job], deliver: ([(any ReplyTarget, ByteBuffer)]) -> Void) async {
        for step in SharedOwnerSteps.steps(jobs) {
            switch step {
            case .transaction(let transaction):
                deliver(await process(transaction))
            case .reload(let campaigns, let locales, let continuation):
                reload(campaigns: campaigns, locales: locales)
                continuation.resume()
            }
        }
    }
}

/// `serve --apps --state postgres://...`: every app's `SharedOwnerLoop`, each on a store of its
/// own. A drain's jobs are cut per app (`AppRuns`); each app's runs go through its loop in
/// transactions (its reloads between them), app after app, and the connections get their replies
/// once every app's transactions of the drain are done, each connection's in its order.
///
/// Not `Sendable`: handed to its runner once, and called only there.
final class SharedAppLoops<Store: SuppressionStore & SharedStateLog>: SharedDrain {
    private let loops: [SharedOwnerLoop<Store>]
    /// The metrics of what belongs to no app (`app=""`): lines naming none.
    private let unnamed: ServeMetrics

    init(_ loops: [SharedOwnerLoop<Store>], unnamed: ServeMetrics) {
        self.loops = loops
        self.unnamed = unnamed
    }

    var isIdle: Bool { loops.allSatisfy(\.isIdle) }

    nonisolated(nonsending) func drain(_ jobs: [EngineOwner.Job]) async {
        var runs = AppRuns(jobs, apps: loops.count, unnamed: unnamed)
        for (app, appJobs) in runs.perApp.enumerated() where !appJobs.isEmpty {
            await loops[app].drain(appJobs) { runs.take($0) }
        }
        ReplyDelivery.send(runs.replies())
    }

    nonisolated(nonsending) func tick() async {
        for loop in loops where !loop.isIdle { await loop.tick() }
    }

    func close() {
        for loop in loops { loop.close() }
    }
}
