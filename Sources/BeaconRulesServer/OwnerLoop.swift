import BeaconRules
import BeaconRulesStore
import Foundation
import Logging
import NIOCore

/// The owner's loop over one kind of suppression store and state log: each batch of jobs is a
/// transaction around the line pipeline (`LinePipeline`), committed before any reply is handed out.
///
/// Guarded by thread confinement. `EngineOwner.init` creates it and never
/// touches it again; from `start()` on only the owner's thread (or event loop) reads or writes
/// its state.
final class OwnerLoop<Store: SuppressionStore, Log: StateLog> {
    private let pipeline: LinePipeline<Store, Log, ReplyOutput>
    private let log: Log
    private let logger: Logger
    private let metrics: ServeMetrics
    /// When the state's sizes were last sampled for the metrics (at most once a second).
    private var sampled = ContinuousClock.now - .seconds(2)
    private var walReporter = WALReporter()

    /// The delivery ledger and the presence state are read from `log`; one that does not load
    /// is logged and the server starts without it.
    init(engine: RulesEngine<Store>, log: Log, format: OutputFormat, presence settings: PresenceSettings, retention: Retention, logger: Logger, metrics: ServeMetrics) {
        pipeline = LinePipeline(
            engine: PresenceEngine(engine: engine, settings: settings), log: log,
            output: ReplyOutput(collectsReferences: log.keepsReferences, logger: logger), format: format,
            logsPresenceInput: true, retention: retention)
        do { try pipeline.loadLedger() } catch {
            logger.error("the delivery ledger did not load; responses to earlier records are unknown ids", metadata: ["error": "\(error)"])
        }
        // Open stays, pending exits and dwells of the last run carry on.
        do { try pipeline.loadPresence() } catch {
            logger.error("the saved presence state does not load; starting with none", metadata: ["error": "\(error)"])
        }
        self.log = log
        self.logger = logger
        self.metrics = metrics
    }

    /// Nothing is pending on the clock: the owner may sleep until work arrives.
    var isIdle: Bool { pipeline.engine.layer.isIdle }

    /// `jobs` in order, cut into transactions as this loop's log needs them.
    func transactions(_ jobs: [EngineOwner.Job]) -> [[EngineOwner.Job]] {
        Self.transactions(jobs, locking: log.locksDevices)
    }

    /// The replies of the last transaction are on their way (see `StateLog.repliesSent()`).
    func repliesSent() {
        log.repliesSent()
    }

    /// Lines at most in one transaction on a shared database (a job is never split): it holds a
    /// lock per device until it commits, and PostgreSQL's lock table is shared and bounded
    /// (`max_locks_per_transaction` × `max_connections`). Without the cap, a backlog (clients
    /// resending after an outage) would make one transaction too large to ever commit.
    static var linesPerLockingTransaction: Int { 1024 }

    /// `jobs` in order, cut into transactions of at most `linesPerLockingTransaction` lines when
    /// the log locks devices; one transaction otherwise.
    static func transactions(_ jobs: [EngineOwner.Job], locking: Bool) -> [[EngineOwner.Job]] {
        guard locking else { return [jobs] }
        var result: [[EngineOwner.Job]] = [[]]
        var lines = 0
        for job in jobs {
            let count = if case .lines(let jobLines, _) = job { jobLines.count } else { 0 }
            if lines > 0 && lines + count > linesPerLockingTransaction {
                result.append([])
                lines = 0
            }
            result[result.count - 1].append(job)
            lines += count
        }
        return result
    }

    func tickIfDue() {
        if !pipeline.engine.layer.isIdle { tick() }
    }

    func close() {
        log.close()
    }

    /// Applies `jobs` in one transaction, commits, resumes the reloads' continuations, and
    /// returns the replies (to be sent only now that they are durable).
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] {
        var replies: [(any ReplyTarget, ByteBuffer)] = []
        var reloaded: [CheckedContinuation<Void, Never>] = []
        defer { for continuation in reloaded { continuation.resume() } }
        var counts = BatchCounts()
        let now = Self.wallClock()
        do {
            try log.begin()
            if log.locksDevices { try lockDevices(of: jobs) }
            pipeline.setWallClock(now)
            for job in jobs {
                switch job {
                case .lines(let lines, let target):
                    counts.lines += lines.count
                    for line in lines {
                        pipeline.append(line)
                        switch line {
                        case .input(.beacon, _): counts.events += 1
                        case .rejected: counts.invalidLines += 1
                        default: break
                        }
                        if pipeline.isBatchFull { pipeline.applyBatch() }
                    }
                    pipeline.applyBatch()
                    replies.append((target, ByteBuffer(bytes: pipeline.output.replies.bytes)))
                    pipeline.output.replies.removeAll()
                case .reload(let campaigns, let locales, let continuation):
                    pipeline.reload(campaigns: campaigns, locales: locales)
                    reloaded.append(continuation)
                }
            }
            try pipeline.settle(now: now)
            let start = ContinuousClock.now
            try log.commit()
            let end = ContinuousClock.now
            counts.records = pipeline.output.counts.records
            counts.silent = pipeline.output.counts.silent
            counts.rejected = pipeline.output.counts.rejected
            pipeline.output.counts = BatchCounts()
            metrics.record(counts, commit: end - start)
            if let activity = log.walActivity { walReporter.report(activity, metrics: metrics, logger: logger) }
            if end - sampled >= .seconds(1) { sample(at: end) }
            logger.trace("committed", metadata: ["events": "\(counts.events)"])
            return replies
        } catch {
            // Nothing of this transaction was kept: tell each line so, and the client resends it.
            // A reload is not part of the transaction: one not reached yet is applied now.
            var lineCount = 0
            var reloadsSeen = 0
            replies.removeAll(keepingCapacity: true)
            var writer = JSONWriter(capacity: 1 << 12)
            for job in jobs {
                switch job {
                case .lines(let lines, let target):
                    writer.removeAll()
                    for line in lines {
                        Reply.rejected(line: line.line, message: "state not saved, resend this line: \(error)", into: &writer)
                    }
                    lineCount += lines.count
                    replies.append((target, ByteBuffer(bytes: writer.bytes)))
                case .reload(let campaigns, let locales, let continuation):
                    reloadsSeen += 1
                    if reloadsSeen > reloaded.count {
                        pipeline.reload(campaigns: campaigns, locales: locales)
                        reloaded.append(continuation)
                    }
                }
            }
            // Saving the ledger may fail before commit() could roll back: end the transaction
            // here too (a second rollback is harmless), and take back the ledger's changes.
            log.rollback()
            pipeline.rolledBack()
            pipeline.output.counts = BatchCounts()
            metrics.notSaved(lineCount)
            logger.error("state not saved; \(lineCount) lines answered with an error", metadata: ["error": "\(error)"])
            return replies
        }
    }

    /// The state's sizes into the metrics' gauges.
    private func sample(at now: ContinuousClock.Instant) {
        sampled = now
        metrics.held(HeldState(answers: log.heldAnswers, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: log.fileBytes))
    }

    /// Hands the log every device and id of the transaction's lines at once, before any is
    /// applied: a shared database locks them in one go, in a fixed order; then the ledger lines
    /// of the records its responses name are read again (another instance may have delivered
    /// them, or taken responses to them).
    private func lockDevices(of jobs: [EngineOwner.Job]) throws {
        var devices: [String] = [], ids: [String] = [], records: [String] = []
        for case .lines(let lines, _) in jobs {
            for case .input(let input, _) in lines {
                ids.append(input.id)
                devices.append(input.device)
                if case .response(let response) = input { records.append(response.notification) }
            }
        }
        try log.lock(devices: devices, answersOf: ids)
        try pipeline.refreshLedger(naming: records)
    }

    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    func tick() {
        do {
            try log.begin()
            let now = Self.wallClock()
            pipeline.setWallClock(now)
            try pipeline.settle(now: now)
            try log.commit()
            if let activity = log.walActivity { walReporter.report(activity, metrics: metrics, logger: logger) }
        } catch {
            log.rollback()
            pipeline.rolledBack()
            logger.error("presence state not saved", metadata: ["error": "\(error)"])
        }
    }

    private static func wallClock() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
