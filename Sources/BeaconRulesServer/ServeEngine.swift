import BeaconRules
import BeaconRulesStore
import NIOCore

/// `serve`'s engine with its store, as the `EngineOwner` runs it on its thread: an `OwnerLoop` of
/// a concrete store, or the `SharedOwnerLoop` on a database, behind a protocol, so that the owner is not
/// generic.
protocol ServeEngine: Sendable {
    /// Nothing is pending on the clock (no open stay, pending exit or dwell): the owner may
    /// sleep until work arrives.
    var isIdle: Bool { get }
    /// Work taken and not done yet (a transaction awaiting the database): the owner's thread
    /// runs on, even stopping, until it is done.
    var isBusy: Bool { get }
    /// Called on the owner's thread before any work, with its executor.
    func start(on executor: UnownedSerialExecutor)
    /// Applies `jobs` in transactions after those taken before, each one's replies sent once it
    /// is committed.
    func apply(_ jobs: [EngineOwner.Job])
    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    func tick()
    /// Nothing is waiting: one step of the work kept for idle moments (see
    /// `StateLog.idleStep()`); whether another is due.
    func idleStep() -> Bool
    /// Closes the store.
    func close()
    /// Calls `body` (on the owner) once the work taken is done: at once for an engine that applies
    /// jobs as it takes them.
    func whenDone(_ body: @escaping @Sendable () -> Void)
}

extension ServeEngine {
    func whenDone(_ body: @escaping @Sendable () -> Void) { body() }
}

/// An engine that applies jobs at once, on the caller's thread (which must be the only one that
/// calls): every store but the database, and the one that may run on an event loop.
protocol SyncServeEngine: ServeEngine {
    /// Applies jobs in one transaction; their replies.
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)]
    /// The replies of the last transaction are on their way (see `StateLog.repliesSent()`).
    func repliesSent()
    /// Lets the wall clock fire pending exits and dwells, if any are pending.
    func tickIfDue()
}

/// An `OwnerLoop` of concrete stores behind the `ServeEngine` protocol. Called through the
/// protocol, a generic class would run unspecialized (every store call through a witness table,
/// generic metadata looked up at run time); each conforming class below names its store, so the
/// witnesses (this extension's methods, for that class) are specialized for it.
protocol OwnerLoopEngine: SyncServeEngine {
    associatedtype Store: SuppressionStore
    associatedtype Log: StateLog
    var loop: OwnerLoop<Store, Log> { get }
}

extension OwnerLoopEngine {
    var isIdle: Bool { loop.isIdle }
    var isBusy: Bool { false }
    func start(on executor: UnownedSerialExecutor) {}
    func apply(_ jobs: [EngineOwner.Job]) {
        ReplyDelivery.send(loop.process(jobs))
        loop.repliesSent()
    }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func repliesSent() { loop.repliesSent() }
    func tick() { loop.tick() }
    func idleStep() -> Bool { loop.idleStep() }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

/// `serve --state FILE`. `@unchecked Sendable`: as `OwnerLoop`, confined to the owner's one thread.
final class SQLiteServeEngine: OwnerLoopEngine, @unchecked Sendable {
    let loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>
    init(_ loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>) { self.loop = loop }
}

/// `serve --state postgres://...`: the `SharedOwnerLoop` (or, with apps, the loops) on the
/// database's stores (made by BeaconRulesPostgres, so that the server compiles no database
/// driver), run by a runner made on the owner's thread as it starts. `@unchecked Sendable`:
/// `loop` is handed to the runner once, on that thread, and `runner` is read only there (every
/// call below is the owner thread's).
final class SharedServeEngine<Drain: SharedDrain>: ServeEngine, @unchecked Sendable {
    private var loop: Drain?
    private var runner: SharedOwnerRunner<Drain>?

    init(_ loop: Drain) {
        self.loop = loop
    }

    func start(on executor: UnownedSerialExecutor) {
        guard let loop else { return }
        self.loop = nil
        runner = SharedOwnerRunner(loop, executor: executor)
    }

    private var started: SharedOwnerRunner<Drain> {
        guard let runner else { preconditionFailure("the database's engine used before the owner's thread started it") }
        return runner
    }

    var isIdle: Bool { started.assumeIsolated { $0.isIdle } }
    var isBusy: Bool { started.assumeIsolated { $0.isDraining } }
    func apply(_ jobs: [EngineOwner.Job]) { started.assumeIsolated { $0.take(jobs) } }
    func tick() { started.assumeIsolated { $0.tick() } }
    /// Nothing kept for idle moments on a database.
    func idleStep() -> Bool { false }
    func close() { started.assumeIsolated { $0.close() } }
    func whenDone(_ body: @escaping @Sendable () -> Void) { started.assumeIsolated { $0.whenDrained(body) } }
}

/// `serve` without `--state`. `@unchecked Sendable`: as `SQLiteServeEngine`; its one thread is the
/// engine's event loop (`EngineOwner` calls it there and nowhere else: `submit` when on that loop,
/// the inbox's drain, the clock's tick and `stop` as tasks on it), or the owner's thread
/// (`--engine-thread`).
final class InMemoryServeEngine: OwnerLoopEngine, @unchecked Sendable {
    let loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>
    init(_ loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>) { self.loop = loop }
}
