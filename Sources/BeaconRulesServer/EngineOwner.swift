import BeaconRules
import BeaconRulesStore
import Foundation
import Logging
import NIOCore

/// The one owner of the rules engine and the SQLite store: it applies every connection's events in
/// arrival order on its own thread, and makes them durable with group commit.
///
/// The engine is not thread-safe and the connection is opened without SQLite's mutex, so all of
/// their use happens on this thread. It sleeps until work arrives, then takes everything queued,
/// applies it in one transaction, commits (one fsync), and only then fulfils the replies. While it
/// waits for the disk, new work queues up and goes into the next transaction: the busier the
/// server, the more events share a commit. A dedicated thread, not an actor on the cooperative
/// pool, because a commit blocks in fsync and the pool has only as many threads as cores.
final class EngineOwner: Sendable {
    /// Work for the owner thread, in arrival order.
    enum Job: Sendable {
        /// One connection's lines; the promise gets their replies, after the commit.
        case lines([RequestLine], EventLoopPromise<ByteBuffer>)
        /// A new campaign set; events queued after it see it, events before it do not.
        case reload(CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
    }

    private let mailbox = Mailbox()
    private let state: OwnedState
    private let logger: Logger
    private let format: OutputFormat

    /// The delivery ledger and the presence state are read from `store` here; one that does not
    /// load is logged and the server starts without it (the suppression state is unaffected).
    init(
        campaigns: CampaignSet, locales: LocaleTable, store: sending SQLiteStateStore, format: OutputFormat = .records,
        presence settings: PresenceSettings = ServerConfiguration.plainPresence, logger: Logger
    ) {
        var engine = RulesEngine(campaigns: campaigns, locales: locales, store: store)
        do { engine.ledger = try store.loadLedger() } catch {
            logger.error("the delivery ledger did not load; responses to earlier records are unknown ids", metadata: ["error": "\(error)"])
        }
        engine.ledger.recordsChanges = true
        var presence = PresenceEngine(engine: engine, settings: settings)
        // Open stays, pending exits and dwells of the last run carry on.
        do {
            if let saved = try store.loadPresence() { try presence.restore(saved) }
        } catch {
            logger.error("the saved presence state does not load; starting with none", metadata: ["error": "\(error)"])
        }
        state = OwnedState(presence: presence)
        self.format = format
        self.logger = logger
    }

    /// How often the owner wakes without work to let the wall clock fire pending exits and dwells.
    static let clockTick: TimeInterval = 1

    /// Starts the owner thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "beaconrules-state"
        thread.start()
    }

    /// Queues one connection's lines; their replies arrive on `promise` once they are durable.
    func submit(_ lines: [RequestLine], promise: EventLoopPromise<ByteBuffer>) {
        guard mailbox.post(.lines(lines, promise)) else {
            promise.fail(ServerError.stopped)
            return
        }
    }

    /// Swaps in a new campaign set, between the events queued before and after this call.
    func reload(campaigns: CampaignSet, locales: LocaleTable) async {
        await withCheckedContinuation { continuation in
            if !mailbox.post(.reload(campaigns, locales, continuation)) { continuation.resume() }
        }
    }

    /// Applies and commits what is queued, closes the store, and returns when the file is closed.
    func stop() async {
        await withCheckedContinuation { continuation in mailbox.close(then: continuation) }
    }

    // MARK: - The owner thread

    private func run() {
        var writer = JSONWriter(capacity: 1 << 16)
        var records = JSONWriter(capacity: 1 << 12)
        while let jobs = mailbox.takeAll(waitingAtMost: state.presence.layer.isIdle ? nil : Self.clockTick) {
            let store = state.presence.engine.store
            if jobs.isEmpty {
                tick(store: store, records: &records)
                continue
            }
            var replies: [(EventLoopPromise<ByteBuffer>, ByteBuffer)] = []
            var reloaded: [CheckedContinuation<Void, Never>] = []
            var events = 0
            do {
                try store.begin()
                for job in jobs {
                    switch job {
                    case .lines(let lines, let promise):
                        writer.bytes.removeAll(keepingCapacity: true)
                        for line in lines {
                            apply(line, store: store, records: &records, into: &writer)
                            if case .event = line { events += 1 }
                        }
                        replies.append((promise, ByteBuffer(bytes: writer.bytes)))
                    case .reload(let campaigns, let locales, let continuation):
                        reload(campaigns, locales, store: store)
                        reloaded.append(continuation)
                    }
                }
                try store.saveLedger(state.presence.engine.ledger.takeChanges())
                advanceClock(store: store, records: &records)
                try store.commit()
                logger.trace("committed", metadata: ["events": "\(events)"])
                for (promise, reply) in replies { promise.succeed(reply) }
            } catch {
                // Nothing of this transaction was kept: tell each line so, and the client resends it.
                // A reload is not part of the transaction: one not reached yet is applied now.
                var lineCount = 0
                var reloadsSeen = 0
                for job in jobs {
                    switch job {
                    case .lines(let lines, let promise):
                        writer.bytes.removeAll(keepingCapacity: true)
                        for line in lines {
                            Reply.rejected(line: line.line, message: "state not saved, resend this line: \(error)", into: &writer)
                        }
                        lineCount += lines.count
                        promise.succeed(ByteBuffer(bytes: writer.bytes))
                    case .reload(let campaigns, let locales, let continuation):
                        reloadsSeen += 1
                        if reloadsSeen > reloaded.count {
                            reload(campaigns, locales, store: store)
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
                    state.presence.engine.ledger = saved
                }
                logger.error("state not saved; \(lineCount) lines answered with an error", metadata: ["error": "\(error)"])
            }
            for continuation in reloaded { continuation.resume() }
        }
        state.presence.engine.store.close()
        mailbox.finished()
    }

    /// A new engine for a new campaign set, keeping the delivery ledger and the handlers.
    private func reload(_ campaigns: CampaignSet, _ locales: LocaleTable, store: SQLiteStateStore) {
        var ledger = state.presence.engine.ledger
        ledger.campaignsChanged()
        let registry = state.presence.engine.actionRegistry
        var engine = RulesEngine(campaigns: campaigns, locales: locales, store: store)
        engine.ledger = ledger
        engine.actionRegistry = registry
        state.presence.replaceEngine(engine)
    }

    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    private func tick(store: SQLiteStateStore, records: inout JSONWriter) {
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
    private func advanceClock(store: SQLiteStateStore, records: inout JSONWriter) {
        guard state.presenceChanged || !state.presence.layer.isIdle else { return }
        records.bytes.removeAll(keepingCapacity: true)
        state.presence.advance(to: Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))), into: &records)
        store.appendOutbox(records.bytes)
        store.savePresence(state.presence.snapshot())
        state.presenceChanged = false
    }

    /// One line's reply: an event id seen before is answered from the log and changes nothing.
    private func apply(_ line: RequestLine, store: SQLiteStateStore, records: inout JSONWriter, into writer: inout JSONWriter) {
        switch line {
        case .rejected(let number, let message):
            Reply.rejected(line: number, message: message, into: &writer)
        case .outbox(let after, let number):
            do { Reply.outbox(try store.outbox(after: after), after: after, into: &writer) } catch {
                Reply.rejected(line: number, message: "cannot read the outbox: \(error)", into: &writer)
            }
        case .event(let event, let number):
            if state.presence.settings.flickerControl {
                applyPresence(.beacon(event), id: event.id, line: number, store: store, records: &records, into: &writer)
                return
            }
            if let answered = store.answer(event: event.id) {
                Reply.accepted(event: event.id, records: answered, into: &writer)
                return
            }
            records.bytes.removeAll(keepingCapacity: true)
            if format == .records {
                state.presence.engine.write(event, into: &records)
            } else {
                _ = try? state.presence.engine.apply(.beacon(event), format: format, into: &records)
            }
            store.remember(event: event.id, records: records.bytes)
            Reply.accepted(event: event.id, records: records.bytes, into: &writer)
        case .response(let response, let number):
            if let answered = store.answer(event: response.id) {
                Reply.accepted(event: response.id, records: answered, into: &writer)
                return
            }
            records.bytes.removeAll(keepingCapacity: true)
            do throws(EventError) {
                if let unhandled = try state.presence.engine.apply(.response(response), format: format, into: &records) {
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
    private func applyPresence(_ input: InputEvent, id: String, line: Int, store: SQLiteStateStore, records: inout JSONWriter, into writer: inout JSONWriter) {
        if let answered = store.answer(event: id) {
            Reply.accepted(event: id, records: answered, into: &writer)
            return
        }
        records.bytes.removeAll(keepingCapacity: true)
        do throws(EventError) { try state.presence.add(input, into: &records) } catch {
            Reply.rejected(line: line, message: error.description, into: &writer)
            return
        }
        state.presenceChanged = true
        store.remember(event: id, records: records.bytes)
        Reply.accepted(event: id, records: records.bytes, into: &writer)
    }
}

/// The engine, handed to the owner thread.
///
/// `@unchecked Sendable`: guarded by thread confinement. `EngineOwner.init` creates it and never
/// touches it again; from `start()` on only the owner thread reads or writes `engine`.
private final class OwnedState: @unchecked Sendable {
    var presence: PresenceEngine<SQLiteStateStore>
    /// The presence layer took input since its state was last saved.
    var presenceChanged = false

    init(presence: PresenceEngine<SQLiteStateStore>) {
        self.presence = presence
    }
}

/// The queue between the connections and the owner thread.
///
/// `@unchecked Sendable`: every stored property is read and written only while holding `condition`.
private final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [EngineOwner.Job] = []
    private var closed = false
    private var done = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

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
