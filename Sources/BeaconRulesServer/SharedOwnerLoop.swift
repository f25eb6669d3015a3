import BeaconRules
import Foundation
import Logging
import NIOCore

/// `serve --state postgres://...`: the owner's loop over the shared database, async. Each
/// transaction is *prepare async, decide sync, commit async* (`SharedStateLog.transaction`):
/// every device and id of its lines locked and read first, the pipeline run against memory, the
/// changes written back and committed, and only then the replies handed out. A transaction that
/// read what was not prepared (presence on the clock reaching a device no line named) is rolled
/// back and run again with it, its replies and the ledger's changes taken back first.
///
/// Guarded by thread confinement, as `OwnerLoop`: only the owner's thread (through the
/// `SharedOwnerRunner` on it) calls it, one transaction at a time. Generic over the database's
/// store, which the server does not know by name.
final class SharedOwnerLoop<Store: SuppressionStore & SharedStateLog> {
    private let pipeline: LinePipeline<Store, Store, ReplyOutput>
    private let store: Store
    private let logger: Logger
    private let metrics: ServeMetrics
    /// When the state's sizes were last sampled for the metrics (at most once a second).
    private var sampled = ContinuousClock.now - .seconds(2)

    /// The delivery ledger is the one the store read as it opened; presence is read when this
    /// instance is let take it (`claimPresence`).
    init(engine: RulesEngine<Store>, store: Store, format: OutputFormat, presence settings: PresenceSettings, retention: Retention, logger: Logger, metrics: ServeMetrics) {
        pipeline = .served(engine: engine, log: store, format: format, presence: settings, retention: retention, logger: logger)
        self.store = store
        self.logger = logger
        self.metrics = metrics
    }

    /// Nothing is pending on the clock: the owner may sleep until work arrives.
    var isIdle: Bool { pipeline.engine.layer.isIdle }

    /// Swaps in a new campaign set, between two transactions.
    func reload(campaigns: CampaignSet, locales: LocaleTable) {
        pipeline.reload(campaigns: campaigns, locales: locales)
    }

    /// What a transaction of `jobs` reads: its lines' devices, ids, response records and outbox
    /// requests; presence when presence input may come (or the clock may move it on).
    private func reads(of jobs: [EngineOwner.Job]) -> TransactionReads {
        var reads = EngineOwner.Job.reads(of: jobs)
        reads.presence = reads.presence || pipeline.engine.settings.flickerControl || !pipeline.engine.layer.isIdle
        return reads
    }

    /// Applies `jobs` (lines only: `steps` keeps reloads apart) in one transaction, commits, and
    /// returns the replies (to be sent only now that they are durable).
    nonisolated(nonsending) func process(_ jobs: [EngineOwner.Job]) async -> [(any ReplyTarget, ByteBuffer)] {
        let reads = reads(of: jobs)
        let now = Self.wallClock()
        let checkpoint = pipeline.checkpoint()
        var counts = BatchCounts()
        var applied = ContinuousClock.now
        do {
            let replies = try await store.transaction(reading: reads, { () throws -> [(any ReplyTarget, ByteBuffer)] in
                counts = BatchCounts()
                pipeline.setWallClock(now)
                try pipeline.refreshLedger(naming: reads.ledgerLinesOf)
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
    private func takeBack(_ checkpoint: PipelineCheckpoint<Store>) {
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
