package import BeaconRules
package import BeaconRulesServer
import BeaconRulesStore
package import Logging

/// The service's engine on a database that other instances share (`StateStorage.postgres`, from
/// BeaconRulesPostgres): its one `LinePipeline`, each call one transaction run as *prepare async,
/// decide sync, commit async* (`SharedStateLog.transaction`), awaited on the service's executor
/// (the `EngineOwner`'s thread), so nothing blocks while a query is in flight. The database is
/// opened at the first call, or by `RulesService.openState()`: the service's initializer does no
/// I/O.
///
/// Not thread-safe: the service's actor makes every call, one at a time (`ServiceTurns`).
package final class SharedServicePipeline<Store: SuppressionStore & SharedStateLog>: SharedServiceEngine {
    /// Opens the store (connects, checks the schema, reads the ledger).
    package typealias Opening = (_ logger: Logger) async throws -> Store

    private let opening: Opening
    private let logger: Logger
    private let presence: PresenceSettings
    private let retention: Retention
    /// The catalog the pipeline is (or will be) built with.
    private var catalog: RulesCatalog
    private var pipeline: LinePipeline<Store, Store, ServiceOutput>?

    /// A pipeline on the store `opening` opens at the first call.
    package init(opening: @escaping Opening, catalog: RulesCatalog, presence: PresenceSettings, retention: Retention, logger: Logger) {
        self.opening = opening
        self.catalog = catalog
        self.presence = presence
        self.retention = retention
        self.logger = logger
    }

    /// The pipeline, the database connected first (its schema checked, its ledger read).
    nonisolated(nonsending) private func opened() async throws -> LinePipeline<Store, Store, ServiceOutput> {
        if let pipeline { return pipeline }
        let store = try await opening(logger)
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: store), settings: presence),
            log: store, output: ServiceOutput(), logsPresenceInput: true, retention: retention)
        try pipeline.loadLedger()
        self.pipeline = pipeline
        return pipeline
    }

    /// Opens the state, if not open yet.
    nonisolated(nonsending) package func open() async throws {
        _ = try await opened()
    }

    /// The lines in one transaction: locked and read, applied, committed; their outcomes.
    nonisolated(nonsending) package func apply(_ lines: [(input: InputLine, identified: Bool)]) async throws -> ServiceOutput {
        try await apply(lines, shown: [])
    }

    /// The lines and the shown campaigns' firings in one transaction (their devices locked too).
    nonisolated(nonsending) package func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) async throws -> ServiceOutput {
        let pipeline = try await opened()
        pipeline.output.outcomes.removeAll(keepingCapacity: true)
        pipeline.output.unhandled.removeAll()
        var reads = TransactionReads()
        for line in lines { reads.add(line.input) }
        reads.devices += shown.map(\.device)
        reads.presence = reads.presence || presence.flickerControl || !pipeline.engine.layer.isIdle
        let checkpoint = pipeline.checkpoint()
        let now = Timestamp.wallClockNow()
        var applied = ContinuousClock.now
        do {
            try await pipeline.log.transaction(reading: reads, { () throws in
                try pipeline.refreshLedger(naming: reads.ledgerLinesOf)
                try pipeline.apply(lines, shown: shown, at: now)
                applied = ContinuousClock.now
            }, retry: {
                pipeline.restore(checkpoint)
                pipeline.output.outcomes.removeAll(keepingCapacity: true)
                pipeline.output.unhandled.removeAll()
                pipeline.output.records.removeAll()
            })
        } catch {
            pipeline.restore(checkpoint)
            throw error
        }
        pipeline.output.commitDuration = ContinuousClock.now - applied
        return pipeline.output
    }

    /// The event explained against the saved state of its device, read in a transaction that
    /// changes nothing.
    nonisolated(nonsending) package func explain(_ event: BeaconEvent) async throws -> [Explanation] {
        let pipeline = try await opened()
        var reads = TransactionReads()
        reads.devices = [event.device]
        return try await pipeline.log.transaction(reading: reads, { Explanation.all(pipeline.engine.engine, event) }, retry: {})
    }

    /// A new catalog, for the next call.
    package func reload(_ catalog: RulesCatalog) {
        self.catalog = catalog
        pipeline?.reload(campaigns: catalog.campaigns, locales: catalog.locales)
    }

    /// Ends the connection.
    package func close() {
        pipeline?.log.close()
    }

    /// The funnels of the ledger this instance has read (the console's results page).
    package func funnels() -> [CampaignFunnel] {
        pipeline?.engine.engine.ledger.funnels() ?? []
    }

    /// How much the state holds (for the metrics): not counted on a shared database.
    package func held() -> HeldState {
        HeldState(answers: 0, deliveries: pipeline?.engine.engine.ledger.indexedCount() ?? 0, fileBytes: nil)
    }
}
