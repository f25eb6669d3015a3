import BeaconRules
public import BeaconRulesStore
public import Logging
public import NIOCore
import NIOPosix
public import ServiceLifecycle

/// `beaconrules serve`: the TCP line service of SPEC section 5, as a swift-service-lifecycle
/// `Service`.
///
/// Graceful shutdown stops accepting, closes every connection's input, answers every line already
/// read, commits, and closes the store; `run()` then returns. `reload()` (SIGHUP in the command)
/// swaps in freshly loaded campaigns without dropping a connection.
public actor BeaconServer: Service {
    /// Loads the campaign and locale files again (the same code as at start).
    public typealias CatalogLoader = @Sendable () -> Result<Catalog, CatalogError>

    private enum State {
        case idle
        case running
        case stopped
    }

    private var state = State.idle
    private let configuration: ServerConfiguration
    private let owner: EngineOwner
    private let loadCatalog: CatalogLoader
    private let onListening: @Sendable (SocketAddress) -> Void
    private var campaignCount: Int
    private var connectionCount = 0
    public nonisolated let logger: Logger

    /// - Parameters:
    ///   - store: the state; the server owns it from here on and closes it when it stops.
    ///   - onListening: told the bound address (with the port picked when `port` is 0).
    public init(
        configuration: ServerConfiguration, catalog: Catalog, store: sending SQLiteStateStore,
        loadCatalog: @escaping CatalogLoader, logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.owner = EngineOwner(campaigns: catalog.campaigns, locales: catalog.locales, store: store, format: configuration.format, presence: configuration.presence, logger: logger)
        self.loadCatalog = loadCatalog
        self.logger = logger
        self.onListening = onListening
        self.campaignCount = catalog.campaigns.campaigns.count
    }

    public func run() async throws {
        guard case .idle = state else { throw ServerError.alreadyStarted }
        state = .running
        owner.start()
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            listener = try await bind()
        } catch {
            await owner.stop()
            state = .stopped
            throw ServerError.cannotListen(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        if let address = listener.channel.localAddress {
            logger.info("listening", metadata: ["address": "\(configuration.host):\(address.port ?? configuration.port)", "campaigns": "\(campaignCount)"])
            onListening(address)
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await listener.executeThenClose { inbound in
                        for try await child in inbound {
                            connectionCount += 1
                            let connection = Connection(
                                number: connectionCount, channel: child, owner: owner,
                                configuration: configuration, logger: logger)
                            group.addTask { await connection.run() }
                        }
                    }
                } catch {
                    logger.debug("listener closed", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            listener.channel.close(promise: nil)
        }
        logger.info("stopped accepting; every connection is closed; closing the state")
        await owner.stop()
        state = .stopped
        logger.info("stopped")
    }

    /// Loads the campaign and locale files again and serves the new set from the next event on.
    /// If they do not load, the current set stays, and the log says why.
    public nonisolated func reload() async {
        switch loadCatalog() {
        case .success(let catalog):
            await owner.reload(campaigns: catalog.campaigns, locales: catalog.locales)
            await setCampaignCount(catalog.campaigns.campaigns.count)
            for warning in catalog.warnings { logger.warning("reload: \(warning)") }
            logger.info("reloaded", metadata: ["campaigns": "\(catalog.campaigns.campaigns.count)"])
        case .failure(let error):
            let kept = await campaignCount
            logger.error("reload failed; still serving the previous \(kept) campaigns", metadata: ["error": "\(error)"])
        }
    }

    private func setCampaignCount(_ count: Int) {
        campaignCount = count
    }

    private func bind() async throws -> NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Without it a client's half-close (all lines sent) would close the connection
            // before its replies were written.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(
                            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8),
                            isOutboundHalfClosureEnabled: true))
                }
            }
    }
}
