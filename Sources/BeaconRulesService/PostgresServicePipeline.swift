import BeaconRules
import BeaconRulesPostgres
import BeaconRulesServer
import BeaconRulesStore
import Logging

/// The service's engine on a PostgreSQL database (`StateStorage.postgres`): its one
/// `LinePipeline`, each call one transaction run as *prepare async, decide sync, commit async*
/// (`PostgresStateStore.transaction`), awaited on the service's executor (the `EngineOwner`'s
/// thread), so nothing blocks while a query is in flight. The database is opened at the first
/// call, or by `RulesService.openState()`: the service's initializer does no I/O.
///
/// Not thread-safe: the service's actor makes every call, one at a time (`ServiceTurns`).
final class PostgresServicePipeline {
    private let location: PostgresLocation
    private let logger: Logger
    private let presence: PresenceSettings
    private let retention: Retention
    /// The catalog the pipeline is (or will be) built with.
    private var catalog: RulesCatalog
    private var pipeline: LinePipeline<PostgresStateStore, PostgresStateStore, ServiceOutput>?

    init(location: PostgresLocation, catalog: RulesCatalog, presence: PresenceSettings, retention: Retention, logger: Logger) {
        self.location = location
        self.catalog = catalog
        self.presence = presence
        self.retention = retention
        self.logger = logger
    }

    /// The pipeline, the database connected first (its schema checked, its ledger read).
    nonisolated(nonsending) func opened() async throws -> LinePipeline<PostgresStateStore, PostgresStateStore, ServiceOutput> {
        if let pipeline { return pipeline }
        let store = try await PostgresStateStore(location: location, logger: logger)
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: store), settings: presence),
            log: store, output: ServiceOutput(), logsPresenceInput: true, retention: retention)
        try pipeline.loadLedger()
        self.pipeline = pipeline
        return pipeline
    }

    /// The lines in one transaction: locked and read, applied, committed; their outcomes.
    nonisolated(nonsending) func apply(_ lines: [(input: InputLine, identified: Bool)]) async throws -> ServiceOutput {
        let pipeline = try await opened()
        pipeline.output.outcomes.removeAll(keepingCapacity: true)
        pipeline.output.unhandled.removeAll()
        var reads = TransactionReads(devices: lines.map(\.input.device), answers: lines.map(\.input.id))
        reads.ledgerLinesOf = lines.compactMap { line in
            if case .response(let response) = line.input { response.notification } else { nil }
        }
        reads.presence = presence.flickerControl || lines.contains { if case .sighting = $0.input { true } else { false } }
        let checkpoint = pipeline.checkpoint()
        let now = Timestamp.wallClockNow()
        var applied = ContinuousClock.now
        do {
            try await pipeline.log.transaction(reading: reads, { () throws in
                try pipeline.refreshLedger(naming: reads.ledgerLinesOf)
                try pipeline.apply(lines, at: now)
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
    /// is rolled back.
    nonisolated(nonsending) func explain(_ event: BeaconEvent) async throws -> [Explanation] {
        let pipeline = try await opened()
        let store = pipeline.log
        try await store.begin()
        do {
            try await store.prepare(TransactionReads(devices: [event.device]))
        } catch {
            await store.rollback()
            throw error
        }
        let explanations = Explanation.all(pipeline.engine.engine, event)
        await store.rollback()
        return explanations
    }

    /// A new catalog, for the next call.
    func reload(_ catalog: RulesCatalog) {
        self.catalog = catalog
        pipeline?.reload(campaigns: catalog.campaigns, locales: catalog.locales)
    }

    /// Ends the connection.
    func close() {
        pipeline?.log.close()
    }

    /// How much the state holds (for the metrics): not counted on a shared database.
    func held() -> HeldState {
        HeldState(answers: 0, deliveries: pipeline?.engine.engine.ledger.indexedCount() ?? 0, fileBytes: nil)
    }
}
