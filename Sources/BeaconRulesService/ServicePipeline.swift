import Foundation
import BeaconRules
import BeaconRulesServer
import BeaconRulesStore

/// The service's engine with its store: its one `LinePipeline`, behind a protocol so that the
/// service is not generic over its store. Each `apply` is one transaction: the lines appended
/// and applied in order, the periodic work settled, committed, and only then the outcomes
/// returned.
///
/// Not thread-safe: the service's actor makes every call, on the engine's owner.
protocol ServiceEngine: AnyObject {
    /// `identified`: the line's id names the event (an id seen again is answered as before).
    func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> ServiceOutput
    func reload(_ catalog: RulesCatalog)
    func explain(_ event: BeaconEvent) -> [Explanation]
    func close()
    /// How much the state holds (for the metrics).
    func held() -> HeldState
}

/// The `ServiceEngine` of a store and a log.
final class ServicePipeline<Store: SuppressionStore, Log: StateLog>: ServiceEngine {
    private let pipeline: LinePipeline<Store, Log, ServiceOutput>

    init(catalog: RulesCatalog, store: Store, log: Log, presence: PresenceSettings, retention: Retention) throws {
        pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: catalog.campaigns, locales: catalog.locales, store: store), settings: presence),
            log: log, output: ServiceOutput(), logsPresenceInput: true, retention: retention)
        try pipeline.loadLedger()
        try pipeline.loadPresence()
    }

    func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> ServiceOutput {
        pipeline.output.outcomes.removeAll(keepingCapacity: true)
        pipeline.output.unhandled.removeAll()
        do {
            try pipeline.log.begin()
            try pipeline.apply(lines, at: .wallClockNow())
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

    func reload(_ catalog: RulesCatalog) {
        pipeline.reload(campaigns: catalog.campaigns, locales: catalog.locales)
    }

    func explain(_ event: BeaconEvent) -> [Explanation] {
        Explanation.all(pipeline.engine.engine, event)
    }

    func close() {
        pipeline.log.close()
    }

    func held() -> HeldState {
        HeldState(answers: pipeline.log.heldAnswers, deliveries: pipeline.engine.engine.ledger.indexedCount(), fileBytes: pipeline.log.fileBytes)
    }
}

extension LinePipeline where Output == ServiceOutput {
    /// A call's lines appended and applied in order, then settled: the inside of its
    /// transaction, the same on every store. `now`: the wall clock the answer retention counts by.
    func apply(_ lines: [(input: InputLine, identified: Bool)], at now: Timestamp) throws {
        setWallClock(now)
        for (number, line) in lines.enumerated() {
            append(line.input, line: number + 1, identified: line.identified)
            if isBatchFull { applyBatch() }
        }
        applyBatch()
        try settle()
    }
}

extension Timestamp {
    /// The wall clock now, to the millisecond.
    static func wallClockNow() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
