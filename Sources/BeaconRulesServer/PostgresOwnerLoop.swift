import BeaconRules
import BeaconRulesPostgres
import Foundation
import Logging
import NIOCore

/// `serve --state postgres://...`: the owner's loop over the shared database, async. Each
/// transaction is *prepare async, decide sync, commit async* (`PostgresStateStore.transaction`):
/// every device and id of its lines locked and read first, the pipeline run against memory, the
/// changes written back and committed, and only then the replies handed out. A transaction that
/// read what was not prepared (presence on the clock reaching a device no line named) is rolled
/// back and run again with it, its replies and the ledger's changes taken back first.
///
/// Guarded by thread confinement, as `OwnerLoop`: only the owner's thread (through the
/// `PostgresOwnerRunner` on it) calls it, one transaction at a time.
final class PostgresOwnerLoop {
    private let pipeline: LinePipeline<PostgresStateStore, PostgresStateStore, ReplyOutput>
    private let store: PostgresStateStore
    private let logger: Logger
    private let metrics: ServeMetrics
    /// When the state's sizes were last sampled for the metrics (at most once a second).
    private var sampled = ContinuousClock.now - .seconds(2)

    /// The delivery ledger is the one the store read as it opened; presence is read when this
    /// instance is let take it (`claimPresence`).
    init(engine: RulesEngine<PostgresStateStore>, store: PostgresStateStore, format: OutputFormat, presence settings: PresenceSettings, retention: Retention, logger: Logger, metrics: ServeMetrics) {
        pipeline = .served(engine: engine, log: store, format: format, presence: settings, retention: retention, logger: logger)
        self.store = store
        self.logger = logger
        self.metrics = metrics
    }

    /// Nothing is pending on the clock: the owner may sleep until work arrives.
    var isIdle: Bool { pipeline.engine.layer.isIdle }

    /// Lines at most in one transaction (a job is never split): it holds a lock per device until
    /// it commits, and PostgreSQL's lock table is shared and bounded (`max_locks_per_transaction`
    /// × `max_connections`). Without the cap, a backlog (clients resending after an outage) would
    /// make one transaction too large to ever commit.
    static var linesPerTransaction: Int { 1024 }

    /// What the owner does with a run of jobs, in order.
    enum Step {
        /// Lines of several jobs, one transaction.
        case transaction([EngineOwner.Job])
        /// A new campaign set, between two transactions (a transaction may run twice: its lines
        /// must see one campaign set each time).
        case reload(CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
    }

    /// `jobs` in order: transactions of at most `linesPerTransaction` lines, reloads between them.
    static func steps(_ jobs: [EngineOwner.Job]) -> [Step] {
        var steps: [Step] = []
        var current: [EngineOwner.Job] = []
        var lines = 0
        for job in jobs {
            switch job {
            case .lines(let jobLines, _):
                if lines > 0 && lines + jobLines.count > linesPerTransaction {
                    steps.append(.transaction(current))
                    current = []
                    lines = 0
                }
                current.append(job)
                lines += jobLines.count
            case .reload(let campaigns, let locales, let continuation):
                if !current.isEmpty { steps.append(.transaction(current)) }
                current = []
                lines = 0
                steps.append(.reload(campaigns, locales, continuation))
            }
        }
        if !current.isEmpty { steps.append(.transaction(current)) }
        return steps
    }

    /// Swaps in a new campaign set, between two transactions.
    func reload(campaigns: CampaignSet, locales: LocaleTable) {
        pipeline.reload(campaigns: campaigns, locales: locales)
    }

    /// What a transaction of `jobs` reads: its lines' devices, ids, response records and outbox
    /// requests; presence when presence input may come (or the clock may move it on).
    private func reads(of jobs: [EngineOwner.Job]) -> (TransactionReads, [String]) {
        let keys = EngineOwner.Job.keys(of: jobs)
        var reads = TransactionReads(devices: keys.devices, answers: keys.ids)
        reads.ledgerLinesOf = keys.responseRecords
        reads.outboxAfter = keys.outboxAfter
        reads.presence = pipeline.engine.settings.flickerControl || !pipeline.engine.layer.isIdle || jobs.contains { job in
            guard case .lines(let lines, _) = job else { return false }
            return lines.contains { if case .input(.sighting, _) = $0 { true } else { false } }
        }
        return (reads, keys.responseRecords)
    }

    /// Applies `jobs` (lines only: `steps` keeps reloads apart) in one transaction, commits, and
    /// returns the replies (to be sent only now that they are durable).
    nonisolated(nonsending) func process(_ jobs: [EngineOwner.Job]) async -> [(any ReplyTarget, ByteBuffer)] {
        let (reads, responses) = reads(of: jobs)
        let now = Self.wallClock()
        let checkpoint = pipeline.checkpoint()
        var counts = BatchCounts()
        var applied = ContinuousClock.now
        do {
            let replies = try await store.transaction(reading: reads, { () throws -> [(any ReplyTarget, ByteBuffer)] in
                counts = BatchCounts()
                pipeline.setWallClock(now)
                try pipeline.refreshLedger(naming: responses)
                var replies: [(any ReplyTarget, ByteBuffer)] = []
                for case .lines(let lines, let target) in jobs {
                    replies.append((target, pipeline.apply(lines, counting: &counts)))
                }
                try pipeline.settle(now: now)
                applied = ContinuousClock.now
                return replies
            }, retry: { takeBack(checkpoint) })
            let end = ContinuousClock.now
            pipeline.recordCommitted(counts, commit: end - applied, metrics: metrics, logger: logger)
            if end - sampled >= .seconds(1) {
                sampled = end
                metrics.held(HeldState(answers: 0, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: nil))
            }
            return replies
        } catch {
            takeBack(checkpoint)
            return pipeline.notSaved(jobs, error, metrics: metrics, logger: logger)
        }
    }

    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    nonisolated(nonsending) func tick() async {
        let now = Self.wallClock()
        let checkpoint = pipeline.checkpoint()
        var reads = TransactionReads()
        reads.presence = true
        do {
            try await store.transaction(reading: reads, { () throws in
                pipeline.setWallClock(now)
                try pipeline.settle(now: now)
            }, retry: { takeBack(checkpoint) })
        } catch {
            takeBack(checkpoint)
            logger.error("presence state not saved", metadata: ["error": "\(error)"])
        }
    }

    /// An attempt not committed: the pipeline's memory as before it, its replies dropped.
    private func takeBack(_ checkpoint: PipelineCheckpoint<PostgresStateStore>) {
        pipeline.restore(checkpoint)
        pipeline.output.replies.removeAll()
        pipeline.output.records.removeAll()
        pipeline.output.counts = BatchCounts()
    }

    /// Ends the connection (an open transaction ends with it, rolled back).
    func close() {
        store.close()
    }

    private static func wallClock() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
