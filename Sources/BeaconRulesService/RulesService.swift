public import BeaconRules
import BeaconRulesServer
public import CoreMetrics
public import Logging
public import ServiceLifecycle

/// BeaconRules for a backend: campaigns and locales loaded once (and reloaded), events in,
/// notification records out, state in memory or in the same SQLite file as `serve --state`.
///
/// One actor holds the engine's `LinePipeline` (the same one `replay` and `serve` drive): calls
/// run one at a time, each one transaction that is committed before it returns its records.
/// An event id seen before is answered with the same records and changes nothing. The actor's
/// executor is the engine's owner (`EngineOwner`, as `serve`'s), a thread of its own: a commit
/// that waits for the disk (one fsync per call at most: use the batch forms for throughput)
/// holds that thread, never one of the cooperative pool's, so the caller's other tasks go on.
/// On PostgreSQL each call's round trips are awaited there instead, and calls still take
/// their turns one at a time, in order.
///
/// ```swift
/// let rules = try RulesService(campaigns: [.path("Campaigns")], locales: .folder("Locales"))
/// let records = try await rules.process(event)
/// ```
public actor RulesService: Service {
    /// The thread every call runs on (the actor's executor): its own, or one that several apps'
    /// services share with their state file (`RulesApps` on `StateStorage.sqlite(path:)`).
    private let owner: EngineOwner
    private let engine: ServiceEngineKind
    /// Calls in order, one at a time, across their awaits (an actor alone would interleave them).
    private let turns = ServiceTurns()
    private let logger: Logger
    private let metrics: ServeMetrics
    /// When the state's sizes were last sampled for the metrics (at most once a second).
    private var sampled = ContinuousClock.now - .seconds(2)
    /// What is loaded now, with its warnings.
    public private(set) var catalog: RulesCatalog
    /// How many catalogs were swapped in since the start (the console's pages follow it).
    package private(set) var loads = 0
    /// The campaigns and locales in use with the number of their load (0: the first; each reload
    /// counts one), read together: what was derived from a catalog holds while the number does.
    package var loadedCatalog: (catalog: RulesCatalog, load: Int) { (catalog, loads) }
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
        try self.init(catalog: catalog, state: StateStorage.AppState(storage: state), presence: presence, retention: retention, logger: logger, metrics: metrics)
    }

    /// One app's service among several (`RulesApps`): its state as the apps' storage gives it,
    /// on the owner it gives (a state file's apps share one).
    package init(
        catalog: RulesCatalog, state: StateStorage.AppState, presence: PresenceSettings?, retention: Retention, logger: Logger,
        metrics: any MetricsFactory
    ) throws {
        owner = state.owner ?? EngineOwner(threadNamed: "rules-service")
        let state = state.storage
        for warning in catalog.warnings { logger.warning("\(warning)") }
        let settings = presence ?? Self.defaultPresence(for: catalog.campaigns)
        engine = try state.open(catalog, settings, retention, logger)
        self.catalog = catalog
        self.logger = logger
        self.metrics = ServeMetrics(factory: metrics)
        logger.info("campaigns loaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
    }

    /// The actor's executor: the engine's owner, a thread of its own, not the cooperative pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        owner.asUnownedSerialExecutor()
    }

    /// The presence settings `replay` and `serve` use without options: the defaults, with given
    /// enter/exit events through flicker control only when a campaign has a dwell trigger.
    public static func defaultPresence(for campaigns: CampaignSet) -> PresenceSettings {
        var settings = PresenceSettings()
        settings.flickerControl = campaigns.hasDwell
        return settings
    }

    // MARK: - Events in, records out

    /// Opens the state now rather than at the first call: on PostgreSQL, connects, checks the
    /// schema (creating it in an empty database) and reads the delivery ledger, throwing what
    /// goes wrong. A service that must not start without its database calls it before taking
    /// work. In memory or in a file, the state is open already.
    public func openState() async throws {
        guard case .shared(let database) = engine else { return }
        await turns.enter()
        defer { turns.leave() }
        try await database.open()
    }

    /// One beacon event's records, in SPEC order.
    public func process(_ event: BeaconEvent) async throws -> [Record] {
        try records(of: await apply([(.beacon(event), true)]))[0].get()
    }

    /// Several events in one transaction (one commit): each event's records, in order.
    public func process(_ events: [BeaconEvent]) async throws -> [[Record]] {
        try records(of: await apply(events.map { (.beacon($0), true) })).map { try $0.get() }
    }

    /// A response to a delivered record (SPEC section 8): to the delivery ledger and the action
    /// handlers. Throws `LineRejected` when the ledger does not know the record.
    public func respond(_ response: ResponseEvent) async throws -> [Record] {
        try records(of: await apply([(.response(response), true)]))[0].get()
    }

    /// JSON lines as `replay` reads them (events, responses, sightings), in one transaction:
    /// each line's outcome, with `replay`'s message for a line that is not input (a blank line
    /// included, as a connection answers it). A line without an `id` is known by its place,
    /// `SOURCE:LINE`, and not remembered; `.identifiedByContent` gives it the id made from what it
    /// says, as `serve` and `http` do, so that a line sent again is answered as before.
    public func process(lines: [String], source: String = "stdin", linesWithoutID: LineIntake.LinesWithoutID = .knownByPlace) async throws -> [LineOutcome] {
        try await process(lines: lines, source: source, linesWithoutID: linesWithoutID, shown: [])
    }

    /// `process(lines:)`, then the campaigns devices report they showed (`shown`) kept as
    /// firings, in the same transaction: a Sensorberg SDK's history (`POST /layout`). The lines
    /// are numbered from `firstLine` (the place of the first in its source, as `replay --apps`
    /// hands over a run of a file's lines).
    package func process(
        lines: [String], source: String, linesWithoutID: LineIntake.LinesWithoutID, shown: [FiringEntry], firstLine: Int = 1
    ) async throws -> [LineOutcome] {
        let intake = LineIntake(source: source, linesWithoutID: linesWithoutID)
        return try await process(read: lines.enumerated().map { intake.read($1, number: firstLine + $0) }, shown: shown, firstLine: firstLine)
    }

    /// `process(lines:)` of lines already read, each by an intake that reads no outbox request
    /// and skips no line (`replay --apps` reads each line once, with the app it names:
    /// `LineApps.read`); numbered from `firstLine`.
    package func process(read lines: [ReadLine], shown: [FiringEntry] = [], firstLine: Int) async throws -> [LineOutcome] {
        var inputs: [(input: InputLine, identified: Bool)] = []
        var rejected: [Int: String] = [:]
        for (index, line) in lines.enumerated() {
            switch line {
            case .input(let input, let identified): inputs.append((input, identified))
            case .rejected(let message): rejected[index] = message
            case .outbox, .blank: preconditionFailure("the service's intake reads no outbox requests and skips no line")
            }
        }
        metrics.invalid(rejected.count)
        let outcomes = try await apply(inputs, shown: shown)
        var results: [LineOutcome] = []
        var next = 0
        for index in lines.indices {
            if let message = rejected[index] {
                results.append(.rejected(LineRejected(line: firstLine + index, message: message)))
                continue
            }
            switch outcomes[next] {
            case .accepted(let event, let bytes): results.append(.accepted(event: event, records: Record.engineLines(bytes)))
            case .rejected(_, let message): results.append(.rejected(LineRejected(line: firstLine + index, message: message)))
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
    /// is read, never changed. A database that cannot be read is logged and explains nothing.
    public func explain(_ event: BeaconEvent) async throws -> [Explanation] {
        switch engine {
        case .local(let engine): return engine.explain(event)
        case .shared(let database):
            await turns.enter()
            defer { turns.leave() }
            // A state that cannot be read is an error, never an answer of no campaigns.
            return try await database.explain(event)
        }
    }

    /// The notification funnels per campaign and language from the delivery ledger (`beaconrules
    /// report`'s), for the console's results page.
    package func funnels() -> [CampaignFunnel] {
        switch engine {
        case .local(let engine): engine.funnels()
        case .shared(let database): database.funnels()
        }
    }

    // MARK: - Campaigns

    /// Loads new campaigns and locales and swaps them in between two calls: the suppression
    /// state, the delivery ledger and presence carry on. On an error the loaded set stays.
    public func reload(campaigns: [CampaignSource], locales: LocaleSource) async throws {
        let catalog: RulesCatalog
        do { catalog = try RulesCatalog(campaigns: campaigns, locales: locales) } catch {
            metrics.reloaded(false)
            throw error
        }
        await reload(catalog)
    }

    /// Swaps in a catalog already loaded, between two calls.
    public func reload(_ catalog: RulesCatalog) async {
        await turns.enter()
        defer { turns.leave() }
        for warning in catalog.warnings { logger.warning("\(warning)") }
        switch engine {
        case .local(let engine): engine.reload(catalog)
        case .shared(let database): database.reload(catalog)
        }
        self.catalog = catalog
        loads += 1
        metrics.reloaded(true)
        logger.info("campaigns reloaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
    }

    // MARK: - Lifecycle

    /// Runs until graceful shutdown, then closes the state (no call is taken after).
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Ready for work (`beaconrules http`'s `/ready`): the campaigns are loaded and the state is
    /// open.
    public var isReady: Bool { !closed && !catalog.campaigns.campaigns.isEmpty }

    /// Closes the state file (also done when the service stops through `run`), after the call
    /// in progress.
    public func close() async {
        await turns.enter()
        defer { turns.leave() }
        guard !closed else { return }
        closed = true
        switch engine {
        case .local(let engine): engine.close()
        case .shared(let database): database.close()
        }
        logger.info("state closed")
    }

    private func apply(_ lines: [(input: InputLine, identified: Bool)], shown: [FiringEntry] = []) async throws -> [ServiceOutput.Outcome] {
        let output: ServiceOutput
        do {
            switch engine {
            case .local(let engine):
                try refuseWhenClosed()
                output = try shown.isEmpty ? engine.apply(lines) : engine.apply(lines, shown: shown)
            case .shared(let database):
                await turns.enter()
                defer { turns.leave() }
                try refuseWhenClosed()
                output = try await shown.isEmpty ? database.apply(lines) : database.apply(lines, shown: shown)
            }
        } catch let error as LineRejected {
            throw error
        } catch {
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
            switch engine {
            case .local(let engine): metrics.held(engine.held())
            case .shared(let database): metrics.held(database.held())
            }
        }
    }

    /// Every line of the call is refused: the error names the first.
    private func refuseWhenClosed() throws(LineRejected) {
        if closed { throw LineRejected(line: 1, message: "the service is closed") }
    }

    private static let silentPrefix = Array(#"{"kind":"silent""#.utf8)

    private func records(of outcomes: [ServiceOutput.Outcome]) -> [Result<[Record], LineRejected>] {
        outcomes.enumerated().map { index, outcome in
            switch outcome {
            case .accepted(_, let bytes): .success(Record.engineLines(bytes))
            case .rejected(_, let message): .failure(LineRejected(line: index + 1, message: message))
            }
        }
    }
}
