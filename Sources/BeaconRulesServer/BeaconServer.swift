package import BeaconRules
package import BeaconRulesStore
package import Logging
package import NIOCore
import NIOPosix
package import ServiceLifecycle

/// `beaconrules serve`: the TCP line service of SPEC section 5, as a swift-service-lifecycle
/// `Service`.
///
/// Graceful shutdown stops accepting, closes every connection's input, answers every line already
/// read, commits, and closes the store; `run()` then returns. `reload()` (SIGHUP in the command)
/// swaps in freshly loaded campaigns without dropping a connection.
package actor BeaconServer: Service {
    /// Loads the campaign and locale files again (the same code as at start).
    package typealias CatalogLoader = @Sendable () -> Result<RulesCatalog, CampaignLoadError>

    private enum State {
        case idle
        case running
        case stopped
    }

    private var state = State.idle
    private var listening = false

    /// Ready for traffic (the metrics port's `/ready`): the campaigns are loaded, the state is
    /// open, and the server is listening and not shutting down.
    package var isReady: Bool { listening && campaignCount > 0 }
    private let configuration: ServerConfiguration
    private let owner: EngineOwner
    /// The event loops that serve the connections, each connection on one of them: framing,
    /// parsing and writing replies happen there, on every core; the engine is elsewhere, on one
    /// owner (`EngineOwner`).
    private let connectionLoops: any EventLoopGroup
    private let loadCatalog: CatalogLoader
    private let onListening: @Sendable (SocketAddress) -> Void
    private var campaignCount: Int
    private let metrics: ServeMetrics
    /// `serve --apps`: the apps, in the file's order (a line's app is its index), with their
    /// metrics; nil for one app.
    private let apps: [ServedApp]?
    private let appMetrics: [ServeMetrics]
    private var appCampaignCounts: [Int]
    package nonisolated let logger: Logger

    /// - Parameters:
    ///   - store: the state file; the server owns it from here on and closes it when it stops. Nil:
    ///     the state lives in memory, as long as the process.
    ///   - onListening: told the bound address (with the port picked when `port` is 0).
    package init(
        configuration: ServerConfiguration, catalog: RulesCatalog, store: sending SQLiteStateStore?,
        loadCatalog: @escaping CatalogLoader, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) {
        let connectionLoops = MultiThreadedEventLoopGroup.singleton
        let metrics = ServeMetrics(factory: configuration.metrics)
        let owner = if let store {
            EngineOwner(campaigns: catalog.campaigns, locales: catalog.locales, store: store, format: configuration.format, presence: configuration.presence, retention: configuration.retention, logger: logger, metrics: metrics)
        } else {
            // The engine on one of the loops (its connections reach it with no hop), or on a
            // thread of its own (nil).
            EngineOwner(campaigns: catalog.campaigns, locales: catalog.locales, on: configuration.engineThread ? nil : connectionLoops.next(), format: configuration.format, presence: configuration.presence, retention: configuration.retention, logger: logger, metrics: metrics)
        }
        self.init(configuration: configuration, catalog: catalog, owner: owner, metrics: metrics, on: connectionLoops, loadCatalog: loadCatalog, logger: logger, onListening: onListening)
    }

    /// A server on a database's state that other instances may share (`--state postgres://...`,
    /// the store made by BeaconRulesPostgres, so that the server compiles no database driver).
    package init<Store: SuppressionStore & SharedStateLog>(
        configuration: ServerConfiguration, catalog: RulesCatalog, shared store: sending Store,
        loadCatalog: @escaping CatalogLoader, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) {
        let metrics = ServeMetrics(factory: configuration.metrics)
        let owner = EngineOwner(campaigns: catalog.campaigns, locales: catalog.locales, shared: store, format: configuration.format, presence: configuration.presence, retention: configuration.retention, logger: logger, metrics: metrics)
        self.init(configuration: configuration, catalog: catalog, owner: owner, metrics: metrics, on: MultiThreadedEventLoopGroup.singleton, loadCatalog: loadCatalog, logger: logger, onListening: onListening)
    }

    private init(
        configuration: ServerConfiguration, catalog: RulesCatalog, owner: EngineOwner, metrics: ServeMetrics, on connectionLoops: any EventLoopGroup,
        loadCatalog: @escaping CatalogLoader, logger: Logger, onListening: @escaping @Sendable (SocketAddress) -> Void
    ) {
        self.configuration = configuration
        self.connectionLoops = connectionLoops
        self.owner = owner
        self.metrics = metrics
        self.loadCatalog = loadCatalog
        self.logger = logger
        self.onListening = onListening
        self.campaignCount = catalog.campaigns.campaigns.count
        apps = nil
        appMetrics = []
        appCampaignCounts = []
    }

    /// `serve --apps` in memory (`store` nil) or on one state file that every app shares (each
    /// app's rows under its id): each app with its own campaigns, locales, presence settings,
    /// engine, state and metrics (the label `app`), every line naming its app (`LineApps`).
    package init(
        configuration: ServerConfiguration, apps: [ServedApp], store: sending SQLiteStateStore?, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) throws(StoreError) {
        let metrics = apps.map { ServeMetrics(factory: AppMetricsFactory(base: configuration.metrics, app: $0.id)) }
        let unnamed = ServeMetrics(factory: AppMetricsFactory(base: configuration.metrics, app: ""))
        var lanes: [AppsServeEngine.Lane] = []
        for (index, app) in apps.enumerated() {
            let appLogger = Self.logger(logger, app: app.id)
            if let store {
                let number = try store.number(ofApp: app.id, create: true) ?? 0
                store.use(app: number)
                let loop = OwnerLoop(
                    engine: RulesEngine(campaigns: app.catalog.campaigns, locales: app.catalog.locales, store: store), log: store,
                    format: configuration.format, presence: app.presence, retention: configuration.retention, logger: appLogger, metrics: metrics[index])
                lanes.append(AppsServeEngine.Lane(engine: SQLiteServeEngine(loop)) { [store] in store.use(app: number) })
            } else {
                let loop = OwnerLoop(
                    engine: RulesEngine(campaigns: app.catalog.campaigns, locales: app.catalog.locales, store: InMemorySuppressionStore()), log: MemoryStateLog(),
                    format: configuration.format, presence: app.presence, retention: configuration.retention, logger: appLogger, metrics: metrics[index])
                lanes.append(AppsServeEngine.Lane(engine: InMemoryServeEngine(loop)) {})
            }
        }
        let engines = lanes.map(\.engine)
        let owner = EngineOwner(apps: AppsServeEngine(lanes: lanes, unnamed: unnamed) { [store] in
            if let store { store.close() } else { for engine in engines { engine.close() } }
        })
        self.init(configuration: configuration, apps: apps, owner: owner, metrics: metrics, unnamed: unnamed, logger: logger, onListening: onListening)
    }

    /// `serve --apps --state postgres://...`: as `init(configuration:apps:store:logger:onListening:)`,
    /// each app on a store of its own (`stores[i]` for `apps[i]`, its connection), made by
    /// BeaconRulesPostgres.
    package init<Store: SuppressionStore & SharedStateLog>(
        configuration: ServerConfiguration, apps: [ServedApp], shared stores: sending [Store], logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) {
        precondition(stores.count == apps.count, "a store per app")
        let metrics = apps.map { ServeMetrics(factory: AppMetricsFactory(base: configuration.metrics, app: $0.id)) }
        let unnamed = ServeMetrics(factory: AppMetricsFactory(base: configuration.metrics, app: ""))
        var loops: [SharedOwnerLoop<Store>] = []
        for (index, (app, store)) in zip(apps, stores).enumerated() {
            loops.append(SharedOwnerLoop(
                engine: RulesEngine(campaigns: app.catalog.campaigns, locales: app.catalog.locales, store: store), store: store,
                format: configuration.format, presence: app.presence, retention: configuration.retention,
                logger: Self.logger(logger, app: app.id), metrics: metrics[index]))
        }
        // Each app on a store of its own, run by one runner on the owner's thread.
        let owner = EngineOwner(apps: SharedServeEngine(SharedAppLoops(loops, unnamed: unnamed)))
        self.init(configuration: configuration, apps: apps, owner: owner, metrics: metrics, unnamed: unnamed, logger: logger, onListening: onListening)
    }

    private init(
        configuration: ServerConfiguration, apps: [ServedApp], owner: EngineOwner, metrics: [ServeMetrics], unnamed: ServeMetrics, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void
    ) {
        self.configuration = configuration
        connectionLoops = MultiThreadedEventLoopGroup.singleton
        self.owner = owner
        // Connections and the lines naming no app belong to no app: `app=""`.
        self.metrics = unnamed
        loadCatalog = { .failure(CampaignLoadError(diagnostics: [])) }
        self.logger = logger
        self.onListening = onListening
        self.apps = apps
        appMetrics = metrics
        appCampaignCounts = apps.map(\.catalog.campaigns.campaigns.count)
        campaignCount = appCampaignCounts.reduce(0, +)
    }

    /// `logger` with the metadata `app`.
    private static func logger(_ logger: Logger, app: String) -> Logger {
        var logger = logger
        logger[metadataKey: "app"] = "\(app)"
        return logger
    }

    package func run() async throws {
        guard case .idle = state else { throw ServerError.alreadyStarted }
        state = .running
        owner.start()
        let registry = ConnectionRegistry(metrics: metrics)
        let listener: any Channel
        do {
            listener = try await bind(registry: registry)
        } catch {
            await owner.stop()
            state = .stopped
            throw ServerError.cannotListen(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        listening = true
        if let address = listener.localAddress {
            logger.info("listening", metadata: ["address": "\(configuration.host):\(address.port ?? configuration.port)", "campaigns": "\(campaignCount)"])
            onListening(address)
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await listener.closeFuture.get()
            } onCancel: {
                listener.close(promise: nil)
            }
        } onGracefulShutdown: {
            listener.close(promise: nil)
        }
        // However the listener closed, every connection answers what it has read and closes.
        listening = false
        registry.shutdownAll()
        await registry.waitUntilEmpty()
        logger.info("stopped accepting; every connection is closed; closing the state")
        await owner.stop()
        state = .stopped
        logger.info("stopped")
    }

    /// Loads the campaign and locale files again and serves the new set from the next event on.
    /// If they do not load, the current set stays, and the log says why. With apps, every app's
    /// files: an app whose files do not load keeps its set, and the log names it.
    package nonisolated func reload() async {
        if let apps {
            for (index, app) in apps.enumerated() { await reload(app: app, index: index) }
            return
        }
        switch loadCatalog() {
        case .success(let catalog):
            await owner.reload(campaigns: catalog.campaigns, locales: catalog.locales)
            await setCampaignCount(catalog.campaigns.campaigns.count)
            metrics.reloaded(true)
            for warning in catalog.warnings { logger.warning("reload: \(warning)") }
            logger.info("reloaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
        case .failure(let error):
            metrics.reloaded(false)
            let kept = await campaignCount
            let errors = error.diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "; ")
            logger.error("reload failed; still serving the previous \(kept) campaigns", metadata: ["error": "\(errors)"])
        }
    }

    private func setCampaignCount(_ count: Int) {
        campaignCount = count
    }

    /// One app's files loaded again (`reload()`).
    private nonisolated func reload(app: ServedApp, index: Int) async {
        let metrics = appMetrics[index]
        let logger = Self.logger(logger, app: app.id)
        switch app.loadCatalog() {
        case .success(let catalog):
            await owner.reload(app: index, campaigns: catalog.campaigns, locales: catalog.locales)
            await setCampaignCount(catalog.campaigns.campaigns.count, app: index)
            metrics.reloaded(true)
            for warning in catalog.warnings { logger.warning("reload: \(warning)") }
            logger.info("reloaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
        case .failure(let error):
            metrics.reloaded(false)
            let errors = error.diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "; ")
            logger.error("reload failed; the app's loaded campaigns stay", metadata: ["errors": "\(errors)"])
        }
    }

    private func setCampaignCount(_ count: Int, app: Int) {
        appCampaignCounts[app] = count
        campaignCount = appCampaignCounts.reduce(0, +)
    }

    /// A connection's replies written but not yet taken by its socket: past `high` bytes its
    /// lines are no longer read until they fall under `low` (the client reads its replies).
    static let repliesUnsent = ChannelOptions.Types.WriteBufferWaterMark(low: 1 << 20, high: 4 << 20)

    private func bind(registry: ConnectionRegistry) async throws -> any Channel {
        let owner = owner
        let configuration = configuration
        let logger = logger
        let lineApps = apps.map { LineApps(ids: $0.map(\.id)) }
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton, childGroup: connectionLoops)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Without it a client's half-close (all lines sent) would close the connection
            // before its replies were written.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: Self.repliesUnsent)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(owner: owner, registry: registry, configuration: configuration, apps: lineApps, logger: logger))
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
    }
}

/// One app of `serve --apps`: its id (the `app` of its lines, its label and its state's key), its
/// campaigns and locales, its presence settings, and how its files are loaded again (SIGHUP).
package struct ServedApp: Sendable {
    package var id: String
    package var catalog: RulesCatalog
    package var presence: PresenceSettings
    package var loadCatalog: BeaconServer.CatalogLoader

    package init(id: String, catalog: RulesCatalog, presence: PresenceSettings, loadCatalog: @escaping BeaconServer.CatalogLoader) {
        self.id = id
        self.catalog = catalog
        self.presence = presence
        self.loadCatalog = loadCatalog
    }
}
