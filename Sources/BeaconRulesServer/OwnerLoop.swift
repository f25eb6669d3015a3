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
        pipeline = .served(engine: engine, log: log, format: format, presence: settings, retention: retention, logger: logger)
        self.log = log
        self.logger = logger
        self.metrics = metrics
    }

    /// Nothing is pending on the clock: the owner may sleep until work arrives.
    var isIdle: Bool { pipeline.engine.layer.isIdle }

    /// The replies of the last transaction are on their way (see `StateLog.repliesSent()`).
    func repliesSent() {
        log.repliesSent()
    }

    /// The owner is idle: a step of the log's idle work (see `StateLog.idleStep()`).
    func idleStep() -> Bool {
        log.idleStep()
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
            pipeline.setWallClock(now)
            for job in jobs {
                switch job {
                case .lines(let lines, let target):
                    replies.append((target, pipeline.apply(lines, counting: &counts)))
                case .reload(let campaigns, let locales, let continuation):
                    pipeline.reload(campaigns: campaigns, locales: locales)
                    reloaded.append(continuation)
                case .appLines, .appReload:
                    preconditionFailure(AppRuns.onlyTheAppsEngine)
                }
            }
            try pipeline.settle(now: now)
            let start = ContinuousClock.now
            try log.commit()
            let end = ContinuousClock.now
            pipeline.recordCommitted(counts, commit: end - start, metrics: metrics, logger: logger)
            if let activity = log.walActivity { walReporter.report(activity, metrics: metrics, logger: logger) }
            if end - sampled >= .seconds(1) { sample(at: end) }
            return replies
        } catch {
            // Nothing of this transaction was kept: tell each line so, and the client resends it.
            // A reload is not part of the transaction: one not reached yet is applied now.
            var reloadsSeen = 0
            for case .reload(let campaigns, let locales, let continuation) in jobs {
                reloadsSeen += 1
                if reloadsSeen > reloaded.count {
                    pipeline.reload(campaigns: campaigns, locales: locales)
                    reloaded.append(continuation)
                }
            }
            // Saving the ledger may fail before commit() could roll back: end the transaction
            // here too (a second rollback is harmless), and take back the ledger's changes.
            log.rollback()
            pipeline.rolledBack()
            return pipeline.notSaved(jobs, error, metrics: metrics, logger: logger)
        }
    }

    /// The state's sizes into the metrics' gauges.
    private func sample(at now: ContinuousClock.Instant) {
        sampled = now
        metrics.held(HeldState(answers: log.heldAnswers, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: log.fileBytes))
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
