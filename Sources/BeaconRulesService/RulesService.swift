public import BeaconRules
import BeaconRulesServer
public import CoreMetrics
public import Logging
public import ServiceLifecycle

/// BeaconRules for a backend: campaigns and locales loaded once (and reloaded), events in,
/// notification records out, state in memory or in the same SQLite file as `serve --state`.
///
/// One actor owns the engine's `LinePipeline` (the same one `replay` and `serve` drive): calls
/// run one at a time, each one transaction that is committed before it returns its records.
/// An event id seen before is answered with the same records and changes nothing. SQLite calls
/// block the actor's executor while they run (one fsync per call at most: use the batch forms
/// for throughput).
///
/// ```swift
/// let rules = try RulesService(campaigns: [.path("Campaigns")], locales: .folder("Locales"))
/// let records = try await rules.process(event)
/// ```
public actor RulesService: Service {
    private let core: any ServiceCore
    private let logger: Logger
    private let metrics: ServeMetrics
    /// When the state's sizes were last sampled for the metrics (at most once a second).
    private var sampled = ContinuousClock.now - .seconds(2)
    /// What is loaded now, with its warnings.
    public private(set) var catalog: RulesCatalog
    private var closed = false

    /// Loads the campaigns and locales (throwing `CampaignLoadError` with every error, as the
    /// CLI prints them) and opens the state. Warnings are logged. `presence`: nil takes
    /// `defaultPresence(for:)`. Metrics (`serve`'s names: `beaconrules_events_total`,
    /// `beaconrules_records_total`, `beaconrules_lines_rejected_total`,
    /// `beaconrules_commit_seconds`, `beaconrules_batch_lines`, `beaconrules_answers_held`,
    /// `beaconrules_deliveries_held`, `beaconrules_state_file_bytes`,
    /// `beaconrules_reloads_total`) go to `metrics`, by default the factory the application
    /// bootstrapped.
    public init(
        campaigns: [CampaignSource], locales: LocaleSource, state: StateStorage = .inMemory,
        presence: PresenceSettings? = nil, retention: Retention = .default, logger: Logger = Logger(label: "beaconrules"),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) throws {
        try self.init(catalog: RulesCatalog(campaigns: campaigns, locales: locales), state: state, presence: presence, retention: retention, logger: logger, metrics: metrics)
    }

    /// A service over a catalog already loaded.
    public init(
        catalog: RulesCatalog, state: StateStorage = .inMemory, presence: PresenceSettings? = nil, retention: Retention = .default,
        logger: Logger = Logger(label: "beaconrules"), metrics: any MetricsFactory = MetricsSystem.factory
    ) throws {
        for warning in catalog.warnings { logger.warning("\(warning)") }
        let settings = presence ?? Self.defaultPresence(for: catalog.campaigns)
        core = try state.open(catalog, settings, retention, logger)
        self.catalog = catalog
        self.logger = logger
        self.metrics = ServeMetrics(factory: metrics)
        logger.info("campaigns loaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
    }

    /// The presence settings `replay` and `serve` use without options: the defaults, with given
    /// enter/exit events through flicker control only when a campaign has a dwell trigger.
    public static func defaultPresence(for campaigns: CampaignSet) -> PresenceSettings {
        var settings = PresenceSettings()
        settings.flickerControl = campaigns.hasDwell
        return settings
    }

    // MARK: - Events in, records out

    /// One beacon event's records, in SPEC order.
    public func process(_ event: BeaconEvent) throws -> [Record] {
        try records(of: apply([(.beacon(event), true)]))[0].get()
    }

    /// Several events in one transaction (one commit): each event's records, in order.
    public func process(_ events: [BeaconEvent]) throws -> [[Record]] {
        try records(of: apply(events.map { (.beacon($0), true) })).map { try $0.get() }
    }

    /// A response to a delivered record (SPEC section 8): to the delivery ledger and the action
    /// handlers. Throws `LineRejected` when the ledger does not know the record.
    public func respond(_ response: ResponseEvent) throws -> [Record] {
        try records(of: apply([(.response(response), true)]))[0].get()
    }

    /// JSON lines as `replay` reads them (events, responses, sightings), in one transaction:
    /// each line's outcome, with `replay`'s message for a line that is not input. A line
    /// without an `id` is known as `SOURCE:LINE` (and not remembered), unless `identify` gives
    /// it the id made from its content, as `serve` does.
    public func process(lines: [String], source: String = "stdin", identify: Bool = false) throws -> [LineOutcome] {
        var inputs: [(input: InputLine, identified: Bool)] = []
        var rejected: [Int: String] = [:]
        for (index, line) in lines.enumerated() {
            var hasOwnID = true
            func fallback() -> String {
                hasOwnID = false
                return "\(source):\(index + 1)"
            }
            var text = line
            let parsed = text.withUTF8 { bytes -> Result<InputLine, EventError> in
                do throws(EventError) { return .success(try EventParser.parseInput(line: bytes, fallbackID: fallback())) } catch { return .failure(error) }
            }
            switch parsed {
            case .success(let input) where hasOwnID || !identify: inputs.append((input, hasOwnID))
            case .success(let input): inputs.append((EventIdentity.identified(input), true))
            case .failure(let error): rejected[index] = error.description
            }
        }
        metrics.invalid(rejected.count)
        let outcomes = try apply(inputs)
        var results: [LineOutcome] = []
        var next = 0
        for index in lines.indices {
            if let message = rejected[index] {
                results.append(.rejected(line: index + 1, message: message))
                continue
            }
            switch outcomes[next] {
            case .accepted(let event, let bytes): results.append(.accepted(event: event, records: Record.lines(bytes)))
            case .rejected(_, let message): results.append(.rejected(line: index + 1, message: message))
            }
            next += 1
        }
        return results
    }

    /// A stream of events through the service, one call per event: each event's records as
    /// they are committed. The stream ends with the events, or with the first error.
    public nonisolated func records<Events: AsyncSequence & Sendable>(for events: Events) -> AsyncThrowingStream<Record, any Error>
    where Events.Element == BeaconEvent {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in events {
                        for record in try await self.process(event) { continuation.yield(record) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// For one event, every campaign with `fired` or the first rule that stopped it. The state
    /// is read, never changed.
    public func explain(_ event: BeaconEvent) -> [Explanation] {
        core.explain(event)
    }

    // MARK: - Campaigns

    /// Loads new campaigns and locales and swaps them in between two calls: the suppression
    /// state, the delivery ledger and presence carry on. On an error the loaded set stays.
    public func reload(campaigns: [CampaignSource], locales: LocaleSource) throws {
        let catalog: RulesCatalog
        do { catalog = try RulesCatalog(campaigns: campaigns, locales: locales) } catch {
            metrics.reloaded(false)
            throw error
        }
        reload(catalog)
    }

    /// Swaps in a catalog already loaded.
    public func reload(_ catalog: RulesCatalog) {
        for warning in catalog.warnings { logger.warning("\(warning)") }
        core.reload(catalog)
        self.catalog = catalog
        metrics.reloaded(true)
        logger.info("campaigns reloaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
    }

    // MARK: - Lifecycle

    /// Runs until graceful shutdown, then closes the state (no call is taken after).
    public func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    /// Ready for work (`beaconrules http`'s `/ready`): the campaigns are loaded and the state is
    /// open.
    public var isReady: Bool { !closed && !catalog.campaigns.campaigns.isEmpty }

    /// Closes the state file (also done when the service stops through `run`).
    public func close() {
        guard !closed else { return }
        closed = true
        core.close()
        logger.info("state closed")
    }

    private func apply(_ lines: [(input: InputLine, identified: Bool)]) throws -> [ServiceOutput.Outcome] {
        guard !closed else { throw LineRejected(message: "the service is closed") }
        let output: ServiceOutput
        do { output = try core.apply(lines) } catch {
            metrics.notSaved(lines.count)
            logger.error("state not saved; \(lines.count) lines refused", metadata: ["error": "\(error)"])
            throw error
        }
        for click in output.unhandled {
            logger.warning("click with no handler; counted as unhandled", metadata: [
                "record": "\(click.notification)", "actionId": "\(click.actionId)", "type": "\(click.kind)"])
        }
        record(output, for: lines)
        return output.outcomes
    }

    /// The call's counts, once per call, under `serve`'s names (`ServeMetrics`).
    private func record(_ output: ServiceOutput, for lines: [(input: InputLine, identified: Bool)]) {
        var counts = BatchCounts()
        counts.lines = lines.count
        for (line, outcome) in zip(lines, output.outcomes) {
            if case .beacon = line.input { counts.events += 1 }
            switch outcome {
            case .accepted(_, let bytes):
                // Each record starts with its kind: {"kind":"silent",... or {"kind":"notification",...
                for record in bytes.split(separator: 0x0A) {
                    counts.records += 1
                    if record.starts(with: Self.silentPrefix) { counts.silent += 1 }
                }
            case .rejected:
                counts.rejected += 1
            }
        }
        metrics.record(counts, commit: output.commitDuration)
        let now = ContinuousClock.now
        if now - sampled >= .seconds(1) {
            sampled = now
            metrics.held(core.held())
        }
    }

    private static let silentPrefix = Array(#"{"kind":"silent""#.utf8)

    private func records(of outcomes: [ServiceOutput.Outcome]) -> [Result<[Record], LineRejected>] {
        outcomes.map {
            switch $0 {
            case .accepted(_, let bytes): .success(Record.lines(bytes))
            case .rejected(_, let message): .failure(LineRejected(message: message))
            }
        }
    }
}
