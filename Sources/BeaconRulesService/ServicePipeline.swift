import Foundation
package import BeaconRules
package import BeaconRulesServer
package import BeaconRulesStore

/// The service's engine with its store: its one `LinePipeline`, behind a protocol so that the
/// service is not generic over its store. Each `apply` is one transaction: the lines appended
/// and applied in order, the periodic work settled, committed, and only then the outcomes
/// returned.
///
/// Not thread-safe: the service's actor makes every call, on the engine's owner.
package protocol ServiceEngine: AnyObject {
    /// `identified`: the line's id names the event (an id seen again is answered as before).
    func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> ServiceOutput
    /// `apply`, then each of `shown` kept as a firing of its campaign for its device, in the same
    /// transaction: what a phone reports it showed holds suppression and once-only here.
    func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) throws -> ServiceOutput
    func reload(_ catalog: RulesCatalog)
    func explain(_ event: BeaconEvent) -> [Explanation]
    /// The delivery ledger's funnels (`beaconrules report`).
    func funnels() -> [CampaignFunnel]
    func close()
    /// How much the state holds (for the metrics).
    func held() -> HeldState
}

/// The service's engine as its `StateStorage` opens it: called at once (memory, a file), or
/// awaited (a database that other instances share).
package enum ServiceEngineKind {
    /// Each call applied and committed at once, on the service's executor.
    case local(any ServiceEngine)
    /// Each call's round trips awaited on the service's executor, calls taking turns.
    case shared(any SharedServiceEngine)
}

/// The service's engine on a database whose round trips are awaited (`SharedServicePipeline`).
///
/// Not thread-safe: the service's actor makes every call, one at a time (`ServiceTurns`).
package protocol SharedServiceEngine: AnyObject {
    /// Opens the state, if not open yet (connects, checks the schema, reads the ledger).
    nonisolated(nonsending) func open() async throws
    /// The lines in one transaction; their outcomes.
    nonisolated(nonsending) func apply(_ lines: [(input: InputLine, identified: Bool)]) async throws -> ServiceOutput
    /// `apply`, with the campaigns a phone showed kept as firings (`ServiceEngine.apply(_:shown:)`).
    nonisolated(nonsending) func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) async throws -> ServiceOutput
    /// The event explained against its device's saved state; nothing changed.
    nonisolated(nonsending) func explain(_ event: BeaconEvent) async throws -> [Explanation]
    /// A new catalog, for the next call.
    func reload(_ catalog: RulesCatalog)
    /// The funnels of the ledger read so far (`beaconrules report`'s).
    func funnels() -> [CampaignFunnel]
    /// Ends the connection.
    func close()
    /// How much the state holds (for the metrics).
    func held() -> HeldState
}

/// The `ServiceEngine` of a store and a log.
///
/// Several apps may share one store (a state file of `RulesApps`): `enter` makes this app's state
/// the store's current one before each call, and `close` closes the store once the last app is
/// done with it.
package final class ServicePipeline<Store: SuppressionStore, Log: StateLog>: ServiceEngine {
    private let pipeline: LinePipeline<Store, Log, ServiceOutput>
    private let enter: () -> Void
    private let closeLog: (() -> Void)?

    package init(
        catalog: RulesCatalog, store: Store, log: Log, presence: PresenceSettings, retention: Retention,
        enter: @escaping () -> Void = {}, close: (() -> Void)? = nil
    ) throws {
        pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: store), settings: presence),
            log: log, output: ServiceOutput(), logsPresenceInput: true, retention: retention)
        self.enter = enter
        closeLog = close
        try pipeline.loadLedger()
        try pipeline.loadPresence()
    }

    package func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> ServiceOutput {
        try apply(lines, shown: [])
    }

    package func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) throws -> ServiceOutput {
        enter()
        pipeline.output.outcomes.removeAll(keepingCapacity: true)
        pipeline.output.unhandled.removeAll()
        do {
            try pipeline.log.begin()
            try pipeline.apply(lines, shown: shown, at: .wallClockNow())
            let start = ContinuousClock.now
            try pipeline.log.commit()
            pipeline.output.commitDuration = ContinuousClock.now - start
        } catch {
            pipeline.log.rollback()
            pipeline.rolledBack()
            throw error
        }
        return pipeline.output
    }

    package func reload(_ catalog: RulesCatalog) {
        enter()
        pipeline.reload(campaigns: catalog.campaigns, locales: catalog.locales)
    }

    package func explain(_ event: BeaconEvent) -> [Explanation] {
        enter()
        return Explanation.all(pipeline.engine.engine, event)
    }

    package func funnels() -> [CampaignFunnel] {
        pipeline.engine.engine.ledger.funnels()
    }

    package func close() {
        if let closeLog { closeLog() } else { pipeline.log.close() }
    }

    package func held() -> HeldState {
        HeldState(answers: pipeline.log.heldAnswers, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: pipeline.log.fileBytes)
    }
}

extension LinePipeline where Output == ServiceOutput {
    /// A call's lines appended and applied in order, then settled: the inside of its
    /// transaction, the same on every store. `now`: the wall clock the answer retention counts by.
    /// `shown`: campaigns devices report they showed, kept as firings after the lines.
    func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry] = [], at now: Timestamp) throws {
        setWallClock(now)
        for (number, line) in lines.enumerated() {
            append(line.input, line: number + 1, identified: line.identified)
            if isBatchFull { applyBatch() }
        }
        applyBatch()
        record(shown)
        try settle()
    }

    /// Each shown campaign a firing at its time, unless the device's state already has one as
    /// late (so that a report sent twice, or after the engine fired itself, changes nothing).
    /// An eid that is not loaded is skipped: no campaign of that id can be suppressed.
    private func record(_ shown: [FiringEntry]) {
        guard !shown.isEmpty else { return }
        let loaded = Set(engine.engine.campaigns.campaigns.map(\.id))
        for firing in shown where loaded.contains(firing.campaign) {
            if let last = engine.engine.store.lastFiring(device: firing.device, campaign: firing.campaign), last >= firing.time { continue }
            engine.engine.store.recordFiring(device: firing.device, campaign: firing.campaign, at: firing.time)
        }
    }
}

extension Timestamp {
    /// The wall clock now, to the millisecond.
    static func wallClockNow() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
