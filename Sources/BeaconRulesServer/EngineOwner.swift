import BeaconRules
import BeaconRulesStore
import Foundation
import Logging
import NIOCore
import Synchronization

/// Where the replies to one submission go, on `eventLoop`.
protocol ReplyTarget: Sendable {
    var eventLoop: any EventLoop { get }
    /// The same for every submission of one connection.
    var id: ObjectIdentifier { get }
    /// Called on `eventLoop` with the replies (one line per submitted line), once durable;
    /// `flush` on the last of a batch's replies to the same connection.
    func deliver(_ reply: ByteBuffer, flush: Bool)
}

/// A promise as a reply target (tests, and callers outside a channel).
struct PromiseReplyTarget: ReplyTarget {
    let promise: EventLoopPromise<ByteBuffer>
    var eventLoop: any EventLoop { promise.futureResult.eventLoop }
    var id: ObjectIdentifier { ObjectIdentifier(promise.futureResult) }
    func deliver(_ reply: ByteBuffer, flush: Bool) { promise.succeed(reply) }
}

/// The one owner of the rules engine and the state: it applies every connection's events in
/// arrival order, and with `--state` makes them durable with group commit on a thread of its own.
/// Without `--state` nothing waits for a disk, and the same work runs on the connections' event
/// loop as each read's lines arrive (see `init(campaigns:locales:on:format:presence:logger:)`).
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
    /// Without a state file, nothing waits for a disk: the engine runs on the event loop that
    /// serves every connection, with no thread hop per batch. Nil: the owner thread.
    private let inline: (any EventLoop)?
    private let clock = Mutex<RepeatedTask?>(nil)

    /// With `--state`: the engine keeps its suppression state in `store`, and every answer is
    /// durable before it is sent. The delivery ledger and the presence state are read from
    /// `store` here; one that does not load is logged and the server starts without it.
    init(
        campaigns: CampaignSet, locales: LocaleTable, store: sending SQLiteStateStore, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, logger: Logger
    ) {
        thread = FileOwner(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), log: store,
            format: format, presence: settings, logger: logger))
        inline = nil
    }

    /// Without a state file: suppression state in the engine's compact in-memory store, the
    /// answered-event log in a hash table, and the engine run on `eventLoop`, which must be the
    /// one event loop of every connection that submits.
    init(
        campaigns: CampaignSet, locales: LocaleTable, on eventLoop: any EventLoop, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, logger: Logger
    ) {
        thread = MemoryOwner(OwnerLoop(
            engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), log: MemoryStateLog(),
            format: format, presence: settings, logger: logger))
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
            if inline.inEventLoop && target.eventLoop === inline && !mailbox.isClosed {
                for (target, reply) in thread.process([.lines(lines, target)]) { target.deliver(reply, flush: true) }
                return
            }
            if !mailbox.isClosed {
                let owner = self.thread
                inline.execute { EngineOwnerThread.send(owner.process([.lines(lines, target)])) }
                return
            }
        }
        guard inline == nil, mailbox.post(.lines(lines, target)) else {
            var writer = JSONWriter(capacity: 256)
            for line in lines { Reply.rejected(line: line.line, message: "the server is stopping, resend this line", into: &writer) }
            let reply = ByteBuffer(bytes: writer.bytes)
            target.eventLoop.execute { target.deliver(reply, flush: true) }
            return
        }
    }

    /// Queues one connection's lines; `promise` gets their replies once they are durable.
    func submit(_ lines: [RequestLine], promise: EventLoopPromise<ByteBuffer>) {
        submit(lines, to: PromiseReplyTarget(promise: promise))
    }

    /// Swaps in a new campaign set, between the events queued before and after this call.
    func reload(campaigns: CampaignSet, locales: LocaleTable) async {
        if let inline {
            let owner = self.thread
            await withCheckedContinuation { continuation in
                inline.execute { _ = owner.process([.reload(campaigns, locales, continuation)]) }
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
            mailbox.closeInline()
            let owner = self.thread
            clock.withLock { $0?.cancel(); $0 = nil }
            try? await inline.submit { owner.close() }.get()
            return
        }
        await withCheckedContinuation { continuation in mailbox.close(then: continuation) }
    }
}

/// Sending replies back to the connections' event loops.
enum EngineOwnerThread {
    /// Hands the replies to their event loops: one task per event loop for the whole batch, not
    /// one per connection, so a busy batch wakes each loop once.
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
            loop.execute {
                for (index, (target, reply)) in replies.enumerated() {
                    let last = !replies[(index + 1)...].contains { $0.0.id == target.id }
                    target.deliver(reply, flush: last)
                }
            }
        }
    }

}

/// The owner thread's body, whatever its store.
private protocol OwnerThread: Sendable {
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
private final class FileOwner: OwnerThread, @unchecked Sendable {
    let loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>
    init(_ loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>) { self.loop = loop }
    func run(_ mailbox: Mailbox) { loop.run(mailbox) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

private final class MemoryOwner: OwnerThread, @unchecked Sendable {
    let loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>
    init(_ loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>) { self.loop = loop }
    func run(_ mailbox: Mailbox) { loop.run(mailbox) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

/// The owner's loop over one kind of suppression store and state log.
///
/// Guarded by thread confinement. `EngineOwner.init` creates it and never
/// touches it again; from `start()` on only the owner thread reads or writes its state.
private final class OwnerLoop<Store: SuppressionStore, Log: StateLog> {
    private var presence: PresenceEngine<Store>
    /// The presence layer took input since its state was last saved.
    private var presenceChanged = false
    private let log: Log
    private let format: OutputFormat
    private let logger: Logger

    init(engine: RulesEngine<Store>, log: Log, format: OutputFormat, presence settings: PresenceSettings, logger: Logger) {
        var engine = engine
        do { engine.ledger = try log.loadLedger() } catch {
            logger.error("the delivery ledger did not load; responses to earlier records are unknown ids", metadata: ["error": "\(error)"])
        }
        // Only a log with a file saves the ledger's changes.
        engine.ledger.recordsChanges = !(log is MemoryStateLog)
        var presence = PresenceEngine(engine: engine, settings: settings)
        // Open stays, pending exits and dwells of the last run carry on.
        do {
            if let saved = try log.loadPresence() { try presence.restore(saved) }
        } catch {
            logger.error("the saved presence state does not load; starting with none", metadata: ["error": "\(error)"])
        }
        self.presence = presence
        self.log = log
        self.format = format
        self.logger = logger
    }

    // MARK: - The owner thread

    private var writer = JSONWriter(capacity: 1 << 16)
    /// An event's records. When the log keeps references (`StateLog.keepsReferences`), tails of
    /// 32 bytes and more are referenced: a reference costs the log 16 bytes.
    private var records: JSONWriter = {
        var records = JSONWriter(capacity: 1 << 12)
        records.shortestReference = 32
        return records
    }()
    /// The events of the lines being prefetched (`prefetch`), reused: they are written from here,
    /// so the engine starts from what the prefetch found for them.
    private var prefetching = InPlaceEventBatch()
    /// Per line of the slice being applied, its event's place in `prefetching` (-1: not there: not an
    /// event, or one too large for the batch).
    private var prefetchedPlaces: [Int] = []

    /// Loads what the events among `lines` will read (changing nothing), when they go straight
    /// to the rules, and notes where each line's event is in `prefetching`.
    private func prefetch(_ lines: ArraySlice<RequestLine>) {
        prefetching.removeAll()
        prefetchedPlaces.removeAll(keepingCapacity: true)
        if presence.settings.flickerControl { return }
        for line in lines {
            if case .event(let event, _) = line, prefetching.canHold(event) {
                prefetchedPlaces.append(prefetching.count)
                prefetching.append(event)
            } else {
                prefetchedPlaces.append(-1)
            }
        }
        if prefetching.count > 1 { presence.engine.prefetch(prefetching) }
    }

    func run(_ mailbox: Mailbox) {
        while let jobs = mailbox.takeAll(waitingAtMost: presence.layer.isIdle ? nil : EngineOwner.clockTick) {
            if jobs.isEmpty {
                tick(store: log, records: &records)
                continue
            }
            EngineOwnerThread.send(process(jobs))
        }
        close()
        mailbox.finished()
    }

    func tickIfDue() {
        if !presence.layer.isIdle { tick(store: log, records: &records) }
    }

    func close() {
        log.close()
    }

    /// Applies `jobs` in one transaction, commits, resumes the reloads' continuations, and
    /// returns the replies (to be sent only now that they are durable).
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] {
        let store = log
        var replies: [(any ReplyTarget, ByteBuffer)] = []
        var reloaded: [CheckedContinuation<Void, Never>] = []
        defer { for continuation in reloaded { continuation.resume() } }
        var events = 0
        do {
            try store.begin()
            for job in jobs {
                switch job {
                case .lines(let lines, let target):
                    writer.bytes.removeAll(keepingCapacity: true)
                    // A batch at a time, its events prefetched first (`RulesEngine.prefetch`).
                    var start = lines.startIndex
                    while start < lines.endIndex {
                        let end = min(start + RulesEngine<Store>.prefetchBatchSize, lines.endIndex)
                        prefetch(lines[start..<end])
                        for (k, line) in lines[start..<end].enumerated() {
                            apply(line, prefetched: k < prefetchedPlaces.count ? prefetchedPlaces[k] : -1, store: store, records: &records, into: &writer)
                            if case .event = line { events += 1 }
                        }
                        start = end
                    }
                    replies.append((target, ByteBuffer(bytes: writer.bytes)))
                case .reload(let campaigns, let locales, let continuation):
                    reload(campaigns, locales)
                    reloaded.append(continuation)
                }
            }
            try store.saveLedger(presence.engine.ledger.takeChanges())
            advanceClock(store: store, records: &records)
            try store.commit()
            logger.trace("committed", metadata: ["events": "\(events)"])
            return replies
        } catch {
            // Nothing of this transaction was kept: tell each line so, and the client resends it.
            // A reload is not part of the transaction: one not reached yet is applied now.
            var lineCount = 0
            var reloadsSeen = 0
            replies.removeAll(keepingCapacity: true)
            for job in jobs {
                switch job {
                case .lines(let lines, let target):
                    writer.bytes.removeAll(keepingCapacity: true)
                    for line in lines {
                        Reply.rejected(line: line.line, message: "state not saved, resend this line: \(error)", into: &writer)
                    }
                    lineCount += lines.count
                    replies.append((target, ByteBuffer(bytes: writer.bytes)))
                case .reload(let campaigns, let locales, let continuation):
                    reloadsSeen += 1
                    if reloadsSeen > reloaded.count {
                        reload(campaigns, locales)
                        reloaded.append(continuation)
                    }
                }
            }
            // Saving the ledger may fail before commit() could roll back: end the transaction
            // here too (a second rollback is harmless). The ledger in memory has this
            // transaction's changes and the file does not: take the file's back.
            store.rollback()
            if var saved = try? store.loadLedger() {
                saved.recordsChanges = true
                presence.engine.ledger = saved
            }
            logger.error("state not saved; \(lineCount) lines answered with an error", metadata: ["error": "\(error)"])
            return replies
        }
    }

    /// A new engine for a new campaign set, keeping the delivery ledger and the handlers.
    private func reload(_ campaigns: CampaignSet, _ locales: LocaleTable) {
        var ledger = presence.engine.ledger
        ledger.campaignsChanged()
        let registry = presence.engine.actionRegistry
        var engine = RulesEngine(campaigns: campaigns, locales: locales, store: presence.engine.store)
        engine.ledger = ledger
        engine.actionRegistry = registry
        presence.replaceEngine(engine)
    }

    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    private func tick(store: Log, records: inout JSONWriter) {
        do {
            try store.begin()
            advanceClock(store: store, records: &records)
            try store.commit()
        } catch {
            store.rollback()
            logger.error("presence state not saved", metadata: ["error": "\(error)"])
        }
    }

    /// Moves presence to the wall clock (inside the open transaction): what fires goes to the
    /// outbox, and the presence state is saved with the transaction.
    private func advanceClock(store: Log, records: inout JSONWriter) {
        guard presenceChanged || !presence.layer.isIdle else { return }
        records.bytes.removeAll(keepingCapacity: true)
        presence.advance(to: Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))), into: &records)
        store.appendOutbox(records.bytes)
        store.savePresence(presence.snapshot())
        presenceChanged = false
    }

    /// One line's reply: an event id seen before is answered from the log and changes nothing.
    /// `prefetched`: the event's place in `prefetching`, -1 when it is not there.
    private func apply(_ line: RequestLine, prefetched: Int = -1, store: Log, records: inout JSONWriter, into writer: inout JSONWriter) {
        switch line {
        case .rejected(let number, let message):
            Reply.rejected(line: number, message: message, into: &writer)
        case .outbox(let after, let number):
            do { Reply.outbox(try store.outbox(after: after, limit: 1000), after: after, into: &writer) } catch {
                Reply.rejected(line: number, message: "cannot read the outbox: \(error)", into: &writer)
            }
        case .event(let event, let number):
            if presence.settings.flickerControl {
                applyPresence(.beacon(event), id: event.id, line: number, store: store, records: &records, into: &writer)
                return
            }
            if let answered = store.answer(event: event.id) {
                Reply.accepted(event: event.id, records: answered, into: &writer)
                return
            }
            records.bytes.removeAll(keepingCapacity: true)
            if format == .records {
                // Where the log keeps references, record tails are not copied into it: the log
                // keeps the engine's cache alive and the reply copies each tail once.
                records.collectsReferences = store.keepsReferences
                defer {
                    records.removeAll()
                    records.collectsReferences = false
                }
                if prefetched >= 0 && prefetched < prefetching.count {
                    presence.engine.write(prefetching, at: prefetched, into: &records)
                } else {
                    presence.engine.write(event, into: &records)
                }
                store.remember(event: event.id, written: records, holding: presence.engine.referencedStorage)
                Reply.accepted(event: event.id, written: records, into: &writer)
                return
            }
            _ = try? presence.engine.apply(.beacon(event), format: format, into: &records)
            store.remember(event: event.id, records: records.bytes)
            Reply.accepted(event: event.id, records: records.bytes, into: &writer)
        case .response(let response, let number):
            if let answered = store.answer(event: response.id) {
                Reply.accepted(event: response.id, records: answered, into: &writer)
                return
            }
            records.bytes.removeAll(keepingCapacity: true)
            do throws(EventError) {
                if let unhandled = try presence.engine.apply(.response(response), format: format, into: &records) {
                    logger.warning("click with no handler; counted as unhandled", metadata: [
                        "record": "\(unhandled.notification)", "actionId": "\(unhandled.actionId)", "type": "\(unhandled.kind)"])
                }
            } catch {
                // Not logged as answered: the same response after its record arrives is taken then.
                Reply.rejected(line: number, message: error.description, into: &writer)
                return
            }
            store.remember(event: response.id, records: records.bytes)
            Reply.accepted(event: response.id, records: records.bytes, into: &writer)
        case .sighting(let sighting, let number):
            applyPresence(.sighting(sighting, typeColumn: 0), id: sighting.id, line: number, store: store, records: &records, into: &writer)
        }
    }

    /// A line for the presence layer: answered with whatever its event time makes happen (records
    /// of any device whose exit or dwell came due by then, withdrawals included), logged by id.
    private func applyPresence(_ input: InputEvent, id: String, line: Int, store: Log, records: inout JSONWriter, into writer: inout JSONWriter) {
        if let answered = store.answer(event: id) {
            Reply.accepted(event: id, records: answered, into: &writer)
            return
        }
        records.bytes.removeAll(keepingCapacity: true)
        do throws(EventError) { try presence.add(input, into: &records) } catch {
            Reply.rejected(line: line, message: error.description, into: &writer)
            return
        }
        presenceChanged = true
        store.remember(event: id, records: records.bytes)
        Reply.accepted(event: id, records: records.bytes, into: &writer)
    }
}

/// The queue between the connections and the owner thread.
///
/// `@unchecked Sendable`: every stored property is read and written only while holding `condition`.
final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [EngineOwner.Job] = []
    private var closed = false
    private var done = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Marks the mailbox closed when no owner thread drains it (inline mode).
    func closeInline() {
        condition.lock()
        closed = true
        done = true
        condition.unlock()
    }

    /// Queues a job; false once the owner is stopping.
    func post(_ job: EngineOwner.Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Everything queued, waiting while nothing is (at most `limit` seconds: then it returns an
    /// empty list); nil when closed and drained.
    func takeAll(waitingAtMost limit: TimeInterval? = nil) -> [EngineOwner.Job]? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = limit.map { Date(timeIntervalSinceNow: $0) }
        while jobs.isEmpty && !closed {
            if let deadline {
                if !condition.wait(until: deadline) && jobs.isEmpty && !closed { return [] }
            } else {
                condition.wait()
            }
        }
        if jobs.isEmpty { return nil }
        let taken = jobs
        jobs = []
        return taken
    }

    func close(then continuation: CheckedContinuation<Void, Never>) {
        condition.lock()
        if done {
            condition.unlock()
            continuation.resume()
            return
        }
        closed = true
        closeWaiters.append(continuation)
        condition.signal()
        condition.unlock()
    }

    /// Called by the owner thread as it exits.
    func finished() {
        condition.lock()
        done = true
        let waiters = closeWaiters
        closeWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }
}
