import ArgumentParser
import BeaconRules
import BeaconRulesHTTP
import BeaconRulesReplay
import BeaconRulesServer
import BeaconRulesService
import BeaconRulesStore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules serve`: the socket service (SPEC section 5). A thin shell: options, loading, the
/// service group with its signals; the work is in `BeaconRulesServer`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the rules over TCP: one JSON event per line in, one JSON reply per line out.",
        discussion: """
            Replies: {"ok":true,"event":ID,"records":[...]} or {"ok":false,"line":N,"error":...}, one per \
            request line, in order, each sent only once its state change is committed. An event id seen \
            before is answered with the same records and changes nothing (also after a restart, with \
            --state). SIGTERM/SIGINT: stop accepting, answer what was read, exit 0. SIGHUP: reload the \
            campaign and locale files (on failure the old set stays). With --port 0 the bound port is \
            printed on stdout as `listening on HOST:PORT`. Exit status 2: bad usage, campaigns, locales \
            or state that do not load, or an address that cannot be bound. With --apps FILE, every line \
            names its app by its `app` member and is decided by that app's campaigns, locales and state \
            (each app's rows under its id in the one --state), and SIGHUP reloads every app.
            """
    )

    @Option(help: ArgumentHelp("The address to listen on; anything but loopback needs --allow-remote.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
    var port = 7700

    @Flag(help: "Allow a --host that is not loopback (the protocol has no authentication).")
    var allowRemote = false

    @OptionGroup var catalog: CatalogOptions

    @Option(help: ArgumentHelp("Serve the apps of this JSON file (docs/serve.md \"Apps\"): every line names its app by its `app` field, and is decided by that app's campaigns, locales and state.", valueName: "file"))
    var apps: String?

    @OptionGroup var presenceOptions: PresenceOptions

    @OptionGroup var retentionOptions: RetentionOptions

    @OptionGroup var stateOptions: StateOptions

    @Option(name: .customLong("format"), help: ArgumentHelp("Records in replies: `records` (SPEC section 3) or `apns` (APNs payloads).", valueName: "format"))
    var format: OutputFormat = .records

    @OptionGroup var metricsOptions: MetricsOptions

    /// For scripts/serve-benchmark.sh: SQLite's checkpoints inside the commits, as before the
    /// checkpointer thread, to compare both in one run.
    @Flag(help: .hidden)
    var checkpointsInCommits = false

    /// For scripts/serve-benchmark.sh: no checkpointer thread, the owner copies the WAL back
    /// between two commits, to compare with the thread in one run.
    @Flag(help: .hidden)
    var checkpointsBetweenCommits = false

    /// Who copies the state file's WAL back: the checkpointer thread unless a benchmark flag says
    /// otherwise (`--checkpoints-in-commits` first, as before the enum).
    var checkpoints: CheckpointMode {
        checkpointsInCommits ? .inCommits : checkpointsBetweenCommits ? .betweenCommits : .onThread
    }

    /// For scripts/serve-benchmark.sh: without a state file, the engine on a thread of its own
    /// (as with one) instead of on one of the event loops, to compare both in one run.
    @Flag(help: .hidden)
    var engineThread = false

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"), transform: Serve.level)
    var logLevel: Logger.Level = .info

    static func level(_ text: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("--log-level \(text): expected one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }

    /// Log lines to stderr from `level` up: `serve`, `http` and `console`.
    static func bootstrapLogging(_ level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    func run() async throws {
        // SIGHUP's default action ends the process; until the reloader has its handler in place,
        // a SIGHUP (a reload asked for too early) is ignored instead.
        signal(SIGHUP, SIG_IGN)
        // A closed stdout (the `listening on` line) must not end the server.
        signal(SIGPIPE, SIG_IGN)
        var configuration = ServerConfiguration(host: host, port: port, allowRemote: allowRemote)
        configuration.format = format
        configuration.engineThread = engineThread
        configuration.retention = retentionOptions.retention
        do {
            try configuration.validate()
            try metricsOptions.validate(allowRemote: allowRemote)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        Self.bootstrapLogging(logLevel)
        let logger = Logger(label: "beaconrules.serve")
        guard presenceOptions.inputFormat == .jsonl else {
            StandardError.write("beaconrules: serve reads JSON lines only; --input-format \(presenceOptions.inputFormat.rawValue) is for replay and timeline\n")
            throw ExitCode(2)
        }
        let metrics = metricsOptions.endpoint()
        if let metrics { configuration.metrics = metrics.factory }
        if let apps {
            try await run(apps: apps, configuration: configuration, metrics: metrics, logger: logger)
            return
        }
        let (campaigns, locales) = try catalog.load { warning in logger.warning("\(warning)") }
        configuration.presence = try presenceOptions.settings(campaigns: campaigns)
        let listening = configuration
        let catalog = self.catalog
        let loaded = RulesCatalog(campaigns: campaigns, locales: locales)
        let onListening: @Sendable (SocketAddress) -> Void = { address in
            // Tests and scripts read the port from here when --port is 0.
            OutputSink(fd: 1).write(Array("listening on \(listening.host):\(address.port ?? listening.port)\n".utf8))
        }
        let server: BeaconServer
        switch try await stateOptions.open(checkpoints: checkpoints, logger: logger) {
        case .postgres(let store):
            server = BeaconServer(
                configuration: configuration, catalog: loaded, shared: store,
                loadCatalog: { catalog.read() }, logger: logger, onListening: onListening)
        case .sqlite(let store):
            server = BeaconServer(
                configuration: configuration, catalog: loaded, store: store,
                loadCatalog: { catalog.read() }, logger: logger, onListening: onListening)
        case nil:
            server = BeaconServer(
                configuration: configuration, catalog: loaded, store: nil,
                loadCatalog: { catalog.read() }, logger: logger, onListening: onListening)
        }
        try await run(server, metrics: metrics, logger: logger)
    }

    /// `server` with its signals (and the metrics port) until SIGTERM or SIGINT.
    private func run(_ server: BeaconServer, metrics: MetricsEndpoint?, logger: Logger) async throws {
        // The metrics port first: the group stops services in reverse order, so it answers
        // (`/ready` with 503) until the server has stopped.
        let metricsPort = metrics.map { [metricsOptions.service($0, logger: logger) { await server.isReady }] } ?? []
        var group = ServiceGroupConfiguration(
            services: metricsPort + [
                .init(service: server),
                .init(service: HangupReloader(server: server), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        // A client that never reads its replies must not hold the shutdown forever.
        group.maximumGracefulShutdownDuration = .seconds(30)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let error as ServerError {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
    }
}

extension Serve {
    /// `serve --apps FILE`: every app of the file with its campaigns, locales and presence
    /// settings, its state in memory, in the one `--state` file (each app's rows under its id),
    /// or in the `--state` database (a connection per app). Exit 2 with the file's problems, the
    /// app whose files do not load, or `--campaigns`/`--locales`, which the file replaces.
    private func run(apps file: String, configuration: ServerConfiguration, metrics: MetricsEndpoint?, logger: Logger) async throws {
        guard catalog.campaignPaths.isEmpty, catalog.localesDirectory == "Locales" else {
            StandardError.write("beaconrules: --apps gives each app its campaigns and locales: drop --campaigns and --locales\n")
            throw ExitCode(2)
        }
        var served: [ServedApp] = []
        do {
            for definition in try AppsFile.read(path: file) {
                let load: BeaconServer.CatalogLoader = { Result { () throws(CampaignLoadError) in try RulesApps.catalog(of: definition) } }
                let catalog: RulesCatalog
                do { catalog = try load().get() } catch { throw AppLoadError(app: definition.id, underlying: error) }
                for warning in catalog.warnings { logger.warning("\(warning)", metadata: ["app": "\(definition.id)"]) }
                served.append(ServedApp(
                    id: definition.id, catalog: catalog, presence: try presenceOptions.settings(campaigns: catalog.campaigns), loadCatalog: load))
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        let listening = configuration
        let onListening: @Sendable (SocketAddress) -> Void = { address in
            OutputSink(fd: 1).write(Array("listening on \(listening.host):\(address.port ?? listening.port)\n".utf8))
        }
        let server: BeaconServer
        do throws(StoreError) {
            switch try await stateOptions.openApps(served.map(\.id), checkpoints: checkpoints, logger: logger) {
            case .postgres(let stores):
                server = BeaconServer(configuration: configuration, apps: served, shared: stores, logger: logger, onListening: onListening)
            case .sqlite(let store):
                server = try BeaconServer(configuration: configuration, apps: served, store: store, logger: logger, onListening: onListening)
            case nil:
                server = try BeaconServer(configuration: configuration, apps: served, store: nil, logger: logger, onListening: onListening)
            }
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        try await run(server, metrics: metrics, logger: logger)
    }
}

/// SIGHUP reloads the campaign and locale files.
struct HangupReloader: Service {
    let server: BeaconServer

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            await server.reload()
        }
    }
}

