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

    /// The apps share one state (or none): the first lane with idle work does a step of it.
    func idleStep() -> Bool {
        lanes.contains { $0.engine.idleStep() }
    }

    func close() { closeState() }
}
