import BeaconRules
import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import Synchronization

/// The one owner of the rules engine and the state: it applies every connection's events (from
/// every event loop) in arrival order, and with `--state` makes them durable with group commit on
/// a thread of its own. Without `--state` nothing waits for a disk, and the same work runs on one
/// of the event loops, the engine's (see `init(campaigns:locales:on:format:presence:logger:)`):
/// connections on that loop call it directly, the others queue each read's lines in the
/// `EngineInbox`; with `--engine-thread`, on a thread of its own as with `--state` (no-op commits).
///
/// The engine is not thread-safe and the SQLite connection is opened without SQLite's mutex, so
/// all of their use happens on the owner thread. It sleeps until work arrives, then takes everything
/// queued, applies it in one transaction, commits (one fsync), and only then hands the replies to
/// the connections' event loops, one task per event loop for the whole batch. While it waits for
/// the disk, new work queues up and goes into the next transaction: the busier the server, the
/// more events share a commit. A dedicated thread, not an actor on the cooperative pool, because
/// a commit blocks in fsync and the pool has only as many threads as cores.
final class EngineOwner: Sendable {
    /// Work for the owner thread, in arrival order.
    enum Job: Sendable {
        /// One connection's lines; the target gets their replies, after the commit.
        case lines([RequestLine], any ReplyTarget)
        /// A new campaign set; events queued after it see it, events before it do not.
        case reload(CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
    }

    private let mailbox = Mailbox()
    private let thread: any OwnerThread
    /// Without a state file, nothing waits for a disk: the engine runs on this event loop, which
    /// also serves connections (theirs reach it with no hop; the other loops' through `inbox`,
    /// one wake for whatever queued up meanwhile). Nil: the owner thread.
    private let inline: (any EventLoop)?
    private let inbox = EngineInbox()
    private let clock = Mutex<RepeatedTask?>(nil)

    /// With `--state`: the engine keeps its suppression state in `store`, and every answer is
    /// durable before it is sent. The delivery ledger and the presence state are read from
    /// `store` here; one that does not load is logged and the server starts without it.
    init(
        campaigns: CampaignSet, locales: LocaleTable, store: sending SQLiteStateStore, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        thread = FileOwner(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), log: store,
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics))
        inline = nil
    }

    /// With `--state postgres://...`: as with a state file, the database shared with other
    /// instances (each transaction locks its devices first). The store is made elsewhere
    /// (BeaconRulesPostgres), so that the server compiles no database driver.
    init<Store: SuppressionStore & StateLog>(
        campaigns: CampaignSet, locales: LocaleTable, shared store: sending Store, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        thread = DatabaseOwner(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), log: store,
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics))
        inline = nil
    }

    /// Without a state file: suppression state in the engine's compact in-memory store, the
    /// answered-event log in a hash table, and the engine run on `eventLoop` (connections on any
    /// event loop may submit), or with none on an owner thread of its own, as with a state file.
    init(
        campaigns: CampaignSet, locales: LocaleTable, on eventLoop: (any EventLoop)?, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, retention: Retention = .default, logger: Logger, metrics: ServeMetrics = .none
    ) {
        thread = MemoryOwner(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), log: MemoryStateLog(),
            format: format, presence: settings, retention: retention, logger: logger, metrics: metrics))
        inline = eventLoop
    }

    /// How often the owner wakes without work to let the wall clock fire pending exits and dwells.
    static let clockTick: TimeInterval = 1

    /// Starts the owner thread.
    func start() {
        if let inline {
            let owner = self.thread
            let tick = TimeAmount.milliseconds(Int64(Self.clockTick * 1000))
            clock.withLock { $0 = inline.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in owner.tickIfDue() } }
            return
        }
        let thread = Thread { [self] in self.thread.run(mailbox) }
        thread.name = "beaconrules-state"
        thread.start()
    }

    /// Queues one connection's lines; their replies go to `target` once they are durable.
    func submit(_ lines: [RequestLine], to target: any ReplyTarget) {
        if let inline {
            if inline.inEventLoop {
                // Whatever other loops queued came first: one batch, in arrival order.
                if var jobs = inbox.takeQueued() {
                    jobs.append(.lines(lines, target))
                    EngineOwnerThread.send(thread.process(jobs))
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
        } else if mailbox.post(.lines(lines, target)) {
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
        EngineOwnerThread.send(thread.process(jobs))
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
            if !mailbox.post(.reload(campaigns, locales, continuation)) { continuation.resume() }
        }
    }

    /// Applies and commits what is queued, closes the store, and returns when the file is closed.
    func stop() async {
        if let inline {
            inbox.close()
            clock.withLock { $0?.cancel(); $0 = nil }
            // Whatever was queued before the inbox closed is answered, then the log closes.
            try? await inline.submit { [self] in
                drainInbox()
                thread.close()
            }.get()
            return
        }
        await withCheckedContinuation { continuation in mailbox.close(then: continuation) }
    }
}

/// Sending replies back to the connections' event loops.
enum EngineOwnerThread {
    /// Hands the replies to their event loops: one task per event loop for the whole batch, not
    /// one per connection, so a busy batch wakes each loop once; on the caller's own event loop
    /// (the engine's, without a state file), at once.
    static func send(_ replies: [(any ReplyTarget, ByteBuffer)]) {
        if replies.isEmpty { return }
        var byLoop: [(loop: any EventLoop, replies: [(any ReplyTarget, ByteBuffer)])] = []
        for reply in replies {
            if let index = byLoop.firstIndex(where: { $0.loop === reply.0.eventLoop }) {
                byLoop[index].replies.append(reply)
            } else {
                byLoop.append((reply.0.eventLoop, [reply]))
            }
        }
        for (loop, replies) in byLoop {
            if loop.inEventLoop {
                deliver(replies)
            } else {
                loop.execute { deliver(replies) }
            }
        }
    }

    /// On their event loop: each connection flushed after its last reply of the batch.
    private static func deliver(_ replies: [(any ReplyTarget, ByteBuffer)]) {
        for (index, (target, reply)) in replies.enumerated() {
            let last = !replies[(index + 1)...].contains { $0.0.id == target.id }
            target.deliver(reply, flush: last)
        }
    }

}

/// The owner thread's body, whatever its store.
protocol OwnerThread: Sendable {
    /// The owner thread's loop, until the mailbox is closed and drained.
    func run(_ mailbox: Mailbox)
    /// Applies jobs at once, on the caller's thread (which must be the only one that calls).
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)]
    /// Lets the wall clock fire pending exits and dwells, if any are pending.
    func tickIfDue()
    func close()
}

/// `OwnerLoop`s of concrete types behind the `OwnerThread` protocol. Called through the protocol,
/// a generic class would run unspecialized (every store call through a witness table, generic
/// metadata looked up at run time); called from these, the compiler specializes it for each store.
///
/// `@unchecked Sendable`: as `OwnerLoop`, confined to the one thread (or event loop) that runs it.
final class FileOwner: OwnerThread, @unchecked Sendable {
    let loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>
    init(_ loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>) { self.loop = loop }
    func run(_ mailbox: Mailbox) { loop.run(mailbox) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

/// `@unchecked Sendable`: as `FileOwner`, on the thread that owns the database connection.
/// Generic over the database's store, which the server does not know by name (BeaconRulesPostgres
/// makes it): unlike `FileOwner`'s, its loop is not specialized for its store.
final class DatabaseOwner<Store: SuppressionStore & StateLog>: OwnerThread, @unchecked Sendable {
    let loop: OwnerLoop<Store, Store>
    init(_ loop: OwnerLoop<Store, Store>) { self.loop = loop }
    func run(_ mailbox: Mailbox) { loop.run(mailbox) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

/// `@unchecked Sendable`: as `FileOwner`; its one thread is the engine's event loop
/// (`EngineOwner` calls it there and nowhere else: `submit` when on that loop, the inbox's drain,
/// the clock's tick and `stop` as tasks on it), or the owner thread (`--engine-thread`).
final class MemoryOwner: OwnerThread, @unchecked Sendable {
    let loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>
    init(_ loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>) { self.loop = loop }
    func run(_ mailbox: Mailbox) { loop.run(mailbox) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}
