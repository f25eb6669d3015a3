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
    /// `apply`, then each of `shown` recorded as a firing of its campaign for its device (in the
    /// same transaction): what a phone reports it showed holds suppression and once-only here.
    func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) throws -> ServiceOutput
    func reload(_ catalog: RulesCatalog)
    func explain(_ event: BeaconEvent) -> [Explanation]
    func close()
    /// How much the state holds (for the metrics).
    func held() -> HeldState
}

/// The `ServiceEngine` of a store and a log.
package final class ServicePipeline<Store: SuppressionStore, Log: StateLog>: ServiceEngine {
    private let pipeline: LinePipeline<Store, Log, ServiceOutput>

    package init(catalog: RulesCatalog, store: Store, log: Log, presence: PresenceSettings, retention: Retention) throws {
        pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: store), settings: presence),
            log: log, output: ServiceOutput(), logsPresenceInput: true, retention: retention)
        try pipeline.loadLedger()
        try pipeline.loadPresence()
    }

    package func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> ServiceOutput {
        try apply(lines, shown: [])
    }

    package func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry]) throws -> ServiceOutput {
        pipeline.output.outcomes.removeAll(keepingCapacity: true)
        pipeline.output.unhandled.removeAll()
        do {
            try pipeline.log.begin()
            // A shared database: the call's devices locked, their state loaded, in one go.
            if pipeline.log.locksDevices {
                try pipeline.log.lock(devices: lines.map(\.input.device) + shown.map(\.device), answersOf: lines.map(\.input.id))
                try pipeline.refreshLedger(naming: lines.compactMap { line in
                    if case .response(let response) = line.input { response.notification } else { nil }
                })
            }
            // The answer retention counts by the wall clock from here.
            pipeline.setWallClock(Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))))
            for (number, line) in lines.enumerated() {
                pipeline.append(line.input, line: number + 1, identified: line.identified)
                if pipeline.isBatchFull { pipeline.applyBatch() }
            }
            pipeline.applyBatch()
            record(shown)
            try pipeline.settle()
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

    /// Each shown action a firing at its time, unless the device's state already has one as
    /// late (so that a report sent twice, or after the engine fired itself, changes nothing).
    /// An eid that is not loaded is skipped: no campaign of that id can be suppressed.
    private func record(_ shown: [FiringEntry]) {
        guard !shown.isEmpty else { return }
        let loaded = Set(pipeline.engine.engine.campaigns.campaigns.map(\.id))
        for action in shown where loaded.contains(action.campaign) {
            if let last = pipeline.engine.engine.store.lastFiring(device: action.device, campaign: action.campaign), last >= action.time { continue }
            pipeline.engine.engine.store.recordFiring(device: action.device, campaign: action.campaign, at: action.time)
        }
    }

    package func reload(_ catalog: RulesCatalog) {
        pipeline.reload(campaigns: catalog.campaigns, locales: catalog.locales)
    }

    package func explain(_ event: BeaconEvent) -> [Explanation] {
        Explanation.all(pipeline.engine.engine, event)
    }

    package func close() {
        pipeline.log.close()
    }

    package func held() -> HeldState {
        HeldState(answers: pipeline.log.heldAnswers, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: pipeline.log.fileBytes)
    }
}
