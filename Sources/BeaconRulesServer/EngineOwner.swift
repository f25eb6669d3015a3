import BeaconRules
import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The one owner of the rules engine and its state, for `serve`, `http` and `RulesService`: the
/// one place where the engine and its store are used. It is a serial executor with a placement:
///
/// - **A thread of its own** (`serve --state FILE`, `serve --engine-thread`, `serve --apps`, and
///   `RulesService`, hence `http`). Blocking work (SQLite's fsync) runs there, and a PostgreSQL
///   round trip is awaited there (the thread runs on meanwhile), never on Swift's cooperative
///   pool, which has only as many threads as cores: a backend's other tasks go on while the
///   engine commits.
/// - **An event loop** (`serve` without `--state`): nothing waits for a disk, and the engine runs
///   on one of the connections' loops, the engine's (see `init(campaigns:locales:on:format:presence:logger:metrics:)`):
///   connections on that loop call it directly, the others queue each read's lines in the
///   `EngineInbox`. docs/performance.md measures this placement as the fastest in memory.
/// - **An event loop of its own** (`serve --state postgres://...`): the database's connection is
///   made on the same loop, so a round trip's answer, read there, resumes the transaction there.
///   On a thread of its own, each of a transaction's dozen round trips woke the connection's loop
///   to send and the owner's thread to go on (docs/performance.md, "PostgreSQL: the owner on its
///   connection's loop"). The connections' loops queue lines in the `EngineInbox`, as above.
///
/// Two kinds of work reach it. `serve`'s connections `submit` lines: the owner holds `serve`'s
/// engine (`ServeEngine`), sleeps until work arrives, then takes everything queued, applies it in
/// one transaction, commits (one fsync), and only then hands the replies to the connections'
/// event loops, one task per event loop for the whole batch. While it waits for the disk, new
/// work queues up and goes into the next transaction: the busier the server, the more events
/// share a commit. On a shared database the engine is async (`SharedServeEngine`): an actor on
/// this owner (`SharedOwnerRunner`) applies the jobs one transaction at a time while the thread
/// goes on taking work, and the thread ends only once that actor is done. And an actor whose
/// executor it is (`RulesService` sets its `unownedExecutor`
/// to the owner) holds the engine itself: its calls, awaited by the caller, run on the owner's
/// thread one at a time, in the order they came.
///
/// The engine is not thread-safe and the SQLite connection is opened without SQLite's mutex, so
/// all of their use happens on the owner's thread (or its event loop).
package final class EngineOwner: SerialExecutor, Sendable {
    /// Work for the owner thread, in arrival order.
    enum Job: Sendable {
        /// One connection's lines; the target gets their replies, after the commit.
        case lines([RequestLine], any ReplyTarget)
        /// A new campaign set; events queued after it see it, events before it do not.
        case reload(CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
        /// `serve --apps`: one connection's lines, each with the app it names; the apps' engine
        /// (`AppsServeEngine`) hands each app its own, and the target gets every reply, in order.
        case appLines([AppRequestLine], any ReplyTarget)
        /// `serve --apps`: a new campaign set for the app with this index.
        case appReload(app: Int, CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
    }

    private let mailbox = Mailbox()
    /// `serve`'s engine; nil when an actor isolated to the owner holds the engine (`RulesService`).
    private let engine: (any ServeEngine)?
    /// The engine again when it may run on an event loop (`inline`): in memory, synchronous.
    private let inlineEngine: InMemoryServeEngine?
    /// Without a state file, nothing waits for a disk: the engine runs on this event loop, which
    /// also serves connections (theirs reach it with no hop; the other loops' through `inbox`,
    /// one wake for whatever queued up meanwhile). Nil: the owner thread.
    private let inline: (any EventLoop)?
    private let inbox = EngineInbox()
    private let clock = Mutex<RepeatedTask?>(nil)
    /// The owner's thread, once it runs (none on an event loop).
    private let ownThread = OwnerThreadID()
    /// The group of the one loop that is `inline` when the owner has a loop of its own (a
    /// database's): shut down when the owner stops.
    private let ownGroup: MultiThreadedEventLoopGroup?

    /// With `--state`: the engine keeps its suppression state in `store`, and every answer is
    /// durable before it is sent. The delivery ledger and the presence state are read from
    /// `store` here; one that does not load is logged and the server starts without it.
    init(
        campaigns: CampaignSet, locales: LocaleTable, store: sending SQLiteStateStore, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        engine = SQLiteServeEngine(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), log: store,
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics))
        inlineEngine = nil
        inline = nil
        ownGroup = nil
    }

    /// With `--state postgres://...`: as with a state file, the database shared with other
    /// instances (each transaction locks its devices first), its transactions awaited on the
    /// owner (`SharedOwnerRunner`): on an event loop of its own, on which the store connects
    /// too. The store is made elsewhere (BeaconRulesPostgres), so that the server compiles no
    /// database driver.
    init<Store: SuppressionStore & SharedStateLog>(
        campaigns: CampaignSet, locales: LocaleTable, shared store: sending Store, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let eventLoop = group.next()
        store.connect(on: eventLoop)
        let loop = SharedOwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), store: store,
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics)
        engine = SharedServeEngine(loop)
        inlineEngine = nil
        inline = eventLoop
        ownGroup = group
    }

    /// Without a state file: suppression state in the engine's compact in-memory store, the
    /// answered-event log in a hash table, and the engine run on `eventLoop` (connections on any
    /// event loop may submit), or with none on an owner thread of its own, as with a state file.
    init(
        campaigns: CampaignSet, locales: LocaleTable, on eventLoop: (any EventLoop)?, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        let inMemory = InMemoryServeEngine(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), log: MemoryStateLog(),
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics))
        engine = inMemory
        inlineEngine = inMemory
        inline = eventLoop
        ownGroup = nil
    }

    /// `serve --apps`: the apps' engine (each app its own pipeline and state) on a thread of its
    /// own, as with a state file.
    init(apps engine: any ServeEngine) {
        self.engine = engine
        inlineEngine = nil
        inline = nil
        ownGroup = nil
    }

    /// An owner on a thread of its own, named `name` (Foundation's `Thread.name`), for an actor
    /// that holds the engine itself and makes this owner its executor (`RulesService`). The
    /// thread runs from here until the owner is released (no job can reach it then: each holds
    /// its actor, which holds the owner).
    package init(threadNamed name: String) {
        engine = nil
        inlineEngine = nil
        inline = nil
        ownGroup = nil
        startThread(named: name)
    }

    deinit {
        mailbox.close()
        ownGroup?.shutdownGracefully { _ in }
    }

    /// How often the owner wakes without work to let the wall clock fire pending exits and dwells.
    static let clockTick: TimeInterval = 1

    /// Starts `serve`'s engine: its thread, or on an event loop its clock.
    func start() {
        guard let engine else { return }
        if let inline {
            let tick = TimeAmount.milliseconds(Int64(Self.clockTick * 1000))
            if let inMemory = inlineEngine {
                clock.withLock { $0 = inline.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in inMemory.tickIfDue() } }
                return
            }
            // A database's engine: started on its loop before any work reaches it there.
            let executor = asUnownedSerialExecutor()
            inline.execute { engine.start(on: executor) }
            clock.withLock {
                $0 = inline.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in
                    if !engine.isIdle { engine.tick() }
                }
            }
            return
        }
        startThread(named: "serve-engine")
    }

    /// The owner's thread. It holds the mailbox and the engine, not the owner, so that an owner
    /// released closes its mailbox and the thread ends.
    private func startThread(named name: String) {
        let thread = Thread { [mailbox, engine, ownThread, executor = asUnownedSerialExecutor()] in
            ownThread.id.withLock { $0 = pthread_self() }
            Self.run(engine, mailbox, executor: executor)
        }
        thread.name = name
        thread.start()
    }

    /// Whether the caller runs on the owner: its thread, or its event loop.
    package var isCurrent: Bool {
        if let inline { return inline.inEventLoop }
        return ownThread.id.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Stops the process unless the caller runs on the owner (`assumeIsolated` of an actor
    /// whose executor it is).
    package func checkIsolated() {
        precondition(isCurrent, "not on the engine owner's thread")
    }

    /// The owner's thread, until the mailbox is closed and drained (and the engine has done what
    /// it took: a transaction awaiting the database resumes here): the actor's tasks run as they
    /// come, `serve`'s jobs between them in transactions; while nothing is queued the engine's
    /// idle work goes on a step at a time (`ServeEngine.idleStep()`: the state file's fold); with
    /// no work for a clock tick while presence is pending, the clock alone moves it on.
    private static func run(_ engine: (any ServeEngine)?, _ mailbox: Mailbox, executor: UnownedSerialExecutor) {
        engine?.start(on: executor)
        while let entries = mailbox.takeAll(waitingAtMost: engine?.isIdle == false ? clockTick : nil, whileBusy: engine?.isBusy ?? false) {
            if entries.isEmpty {
                engine?.tick()
                continue
            }
            var jobs: [Job] = []
            for entry in entries {
                switch entry {
                case .job(let job):
                    jobs.append(job)
                case .task(let task):
                    apply(jobs, on: engine)
                    jobs.removeAll()
                    task.runSynchronously(on: executor)
                }
            }
            apply(jobs, on: engine)
            // Idle: the engine's idle work a short step at a time, while nothing is queued.
            while let engine, mailbox.isEmpty, engine.idleStep() {}
        }
        engine?.close()
        mailbox.finished()
    }

    /// `serve`'s jobs in transactions, each one's replies sent once it is committed.
    private static func apply(_ jobs: [Job], on engine: (any ServeEngine)?) {
        if jobs.isEmpty { return }
        guard let engine else { preconditionFailure(Self.noServeEngine) }
        engine.apply(jobs)
    }

    /// On the engine's loop: `jobs` applied, in memory at once and their replies sent, on a
    /// database after the transactions taken before (each one's replies sent once it commits).
    private func applyOnLoop(_ jobs: [Job]) {
        if let inlineEngine {
            ReplyDelivery.send(inlineEngine.process(jobs))
            return
        }
        guard let engine else { preconditionFailure(Self.noServeEngine) }
        engine.apply(jobs)
    }

    private static let noServeEngine = "serve's work given to an owner whose engine an actor holds"

    // MARK: - Serial executor

    /// Runs an actor's task on the owner: on its thread after what is queued, or on its event loop.
    package func enqueue(_ job: consuming ExecutorJob) {
        let task = UnownedJob(job)
        if let inline {
            let executor = asUnownedSerialExecutor()
            inline.execute { task.runSynchronously(on: executor) }
        } else {
            mailbox.post(task: task)
        }
    }

    /// Queues one connection's lines; their replies go to `target` once they are durable.
    func submit(_ lines: [RequestLine], to target: any ReplyTarget) {
        if let inline {
            if inline.inEventLoop {
                // Whatever other loops queued came first: one batch, in arrival order.
                if var jobs = inbox.takeQueued() {
                    jobs.append(.lines(lines, target))
                    applyOnLoop(jobs)
                    return
                }
            } else {
                switch inbox.post(.lines(lines, target)) {
                case .queued: return
                case .wake:
                    inline.execute { [self] in drainInbox() }
                    return
                case .refused: break
                }
            }
        } else if mailbox.post(.job(.lines(lines, target))) {
            return
        }
        var writer = JSONWriter(capacity: 256)
        for line in lines { Reply.rejected(line: line.line, message: "the server is stopping, resend this line", into: &writer) }
        let reply = ByteBuffer(bytes: writer.bytes)
        target.eventLoop.execute { target.deliver(reply, flush: true) }
    }

    /// On the engine's loop: applies everything queued, in arrival order, as one batch.
    private func drainInbox() {
        let jobs = inbox.takeAll()
        if jobs.isEmpty { return }
        applyOnLoop(jobs)
    }

    /// `serve --apps`: queues one connection's lines, each with its app; their replies go to
    /// `target` once they are durable.
    func submit(_ lines: [AppRequestLine], to target: any ReplyTarget) {
        if mailbox.post(.job(.appLines(lines, target))) { return }
        var writer = JSONWriter(capacity: 256)
        for line in lines { Reply.rejected(line: line.line.line, message: "the server is stopping, resend this line", into: &writer) }
        let reply = ByteBuffer(bytes: writer.bytes)
        target.eventLoop.execute { target.deliver(reply, flush: true) }
    }

    /// `serve --apps`: swaps in a new campaign set for one app, between the lines queued before
    /// and after this call.
    func reload(app: Int, campaigns: CampaignSet, locales: LocaleTable) async {
        await withCheckedContinuation { continuation in
            if !mailbox.post(.job(.appReload(app: app, campaigns, locales, continuation))) { continuation.resume() }
        }
    }

    /// Queues one connection's lines; `promise` gets their replies once they are durable.
    func submit(_ lines: [RequestLine], promise: EventLoopPromise<ByteBuffer>) {
        submit(lines, to: PromiseReplyTarget(promise: promise))
    }

    /// Swaps in a new campaign set, between the events queued before and after this call.
    func reload(campaigns: CampaignSet, locales: LocaleTable) async {
        if let inline {
            await withCheckedContinuation { continuation in
                switch inbox.post(.reload(campaigns, locales, continuation)) {
                case .queued: break
                case .wake: inline.execute { [self] in drainInbox() }
                case .refused: continuation.resume()
                }
            }
            return
        }
        await withCheckedContinuation { continuation in
            if !mailbox.post(.job(.reload(campaigns, locales, continuation))) { continuation.resume() }
        }
    }

    /// Applies and commits what is queued, closes the store, and returns when the file is closed.
    func stop() async {
        if let inline {
            inbox.close()
            clock.withLock { $0?.cancel(); $0 = nil }
            // Whatever was queued before the inbox closed is answered, then the log closes.
            if let inMemory = inlineEngine {
                try? await inline.submit { [self] in
                    drainInbox()
                    inMemory.close()
                }.get()
                return
            }
            // A database's engine: its transactions end (those taken before and what was
            // queued), then its connection closes, then its loop.
            guard let engine else { return }
            await withCheckedContinuation { continuation in
                inline.execute { [self] in
                    drainInbox()
                    engine.whenDone {
                        engine.close()
                        continuation.resume()
                    }
                }
            }
            try? await ownGroup?.shutdownGracefully()
            return
        }
        await withCheckedContinuation { continuation in mailbox.close(then: continuation) }
    }
}

/// The thread an `EngineOwner` runs on, set by the thread itself as it starts (before any work).
final class OwnerThreadID: Sendable {
    let id = Mutex<pthread_t?>(nil)
}
