import BeaconRules
import NIOCore

/// `serve --apps` in memory or on a state file: each app its own engine (an `OwnerLoop` of its own
/// pipeline, campaigns, state and metrics), on the owner's thread. A batch of jobs is cut per app
/// (`AppRuns`); each app's runs are one transaction of its engine, so one app's failed commit costs
/// only its own lines. On a state file every app's loop shares the one store, which is switched to
/// the app (`enter`) before its engine runs.
///
/// `@unchecked Sendable`: as `SQLiteServeEngine`, confined to the owner's one thread.
final class AppsServeEngine: ServeEngine, @unchecked Sendable {
    /// One app's engine, and what makes its state the store's current one (nothing in memory).
    struct Lane {
        let engine: any SyncServeEngine
        let enter: () -> Void
    }

    private let lanes: [Lane]
    /// The metrics of what belongs to no app (`app=""`): lines naming none.
    private let unnamed: ServeMetrics
    private let closeState: () -> Void

    init(lanes: [Lane], unnamed: ServeMetrics, close: @escaping () -> Void) {
        self.lanes = lanes
        self.unnamed = unnamed
        closeState = close
    }

    var isIdle: Bool { lanes.allSatisfy(\.engine.isIdle) }
    var isBusy: Bool { false }
    func start(on executor: UnownedSerialExecutor) {}

    func apply(_ jobs: [EngineOwner.Job]) {
        var runs = AppRuns(jobs, apps: lanes.count, unnamed: unnamed)
        for (app, work) in runs.perApp.enumerated() where !work.isEmpty {
            lanes[app].enter()
            runs.take(lanes[app].engine.process(work))
        }
        ReplyDelivery.send(runs.replies())
        for (app, work) in runs.perApp.enumerated() where !work.isEmpty {
            lanes[app].enter()
            lanes[app].engine.repliesSent()
        }
    }

    func tick() {
        for lane in lanes where !lane.engine.isIdle {
            lane.enter()
            lane.engine.tick()
        }
    }

    func close() { closeState() }
}

/// Runs the apps' `SharedOwnerLoop`s on the owner's thread, as `SharedOwnerRunner` runs one: jobs
/// taken in arrival order and applied one drain at a time; in a drain, each app's runs go through
/// its loop in transactions (at most `SharedOwnerSteps.linesPerTransaction` lines each, its reloads
/// between them), app after app, and the connections get their replies once every app's
/// transactions of the drain are done, each connection's in its order.
actor AppsSharedRunner<Store: SuppressionStore & SharedStateLog> {
    private enum Work {
        case jobs([EngineOwner.Job])
        case tick
    }

    private let executor: UnownedSerialExecutor
    private let loops: [SharedOwnerLoop<Store>]
    private let unnamed: ServeMetrics
    private var queue: [Work] = []
    /// A drain is running (a transaction may be awaiting the database).
    private(set) var isDraining = false

    init(loops: sending [SharedOwnerLoop<Store>], unnamed: ServeMetrics, executor: UnownedSerialExecutor) {
        self.loops = loops
        self.unnamed = unnamed
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    var isIdle: Bool { loops.allSatisfy(\.isIdle) }

    func take(_ jobs: [EngineOwner.Job]) {
        queue.append(.jobs(jobs))
        drainIfIdle()
    }

    func tick() {
        guard !isDraining else { return }
        queue.append(.tick)
        drainIfIdle()
    }

    func close() {
        for loop in loops { loop.close() }
    }

    private func drainIfIdle() {
        guard !isDraining else { return }
        isDraining = true
        Task { await drain() }
    }

    private func drain() async {
        while !queue.isEmpty {
            let work = queue
            queue.removeAll()
            var jobs: [EngineOwner.Job] = []
            for case .jobs(let more) in work { jobs += more }
            if jobs.isEmpty {
                for loop in loops where !loop.isIdle { await loop.tick() }
                continue
            }
            var runs = AppRuns(jobs, apps: loops.count, unnamed: unnamed)
            for (app, appJobs) in runs.perApp.enumerated() where !appJobs.isEmpty {
                for step in SharedOwnerSteps.steps(appJobs) {
                    switch step {
                    case .transaction(let transaction):
                        runs.take(await loops[app].process(transaction))
                    case .reload(let campaigns, let locales, let continuation):
                        loops[app].reload(campaigns: campaigns, locales: locales)
                        continuation.resume()
                    }
                }
            }
            ReplyDelivery.send(runs.replies())
        }
        isDraining = false
    }
}
