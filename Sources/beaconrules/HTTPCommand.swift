import ArgumentParser
import BeaconRulesHTTP
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesServer
import BeaconRulesService
import CoreMetrics
import Logging
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules http`: the HTTP front (`BeaconRulesHTTP`) on one `RulesService`. A thin shell:
/// options, loading, the service group with its signals.
struct HTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "Serve the rules over HTTP: POST /events, POST /responses, GET /campaigns, POST /explain, and the Sensorberg resolver's GET and POST /layout.",
        discussion: """
            POST /events with one JSON event answers its records as a JSON array (400 with replay's \
            message when it is not an event); with NDJSON (several lines, or Content-Type \
            application/x-ndjson) one reply line per line, as `serve` answers. Each answer is sent \
            only once its state change is committed; an event id seen before is answered with the same \
            records. SIGTERM/SIGINT: stop accepting, answer what was read, close the state, exit 0. \
            SIGHUP: reload the campaign and locale files (on failure the old set stays). With --apps \
            FILE, each app of the file is served by its own campaigns, locales and state, named by \
            its X-Api-Key (401 without one; GET /layout answers a key of no app 204, as the \
            Sensorberg resolver does), SIGHUP reloads every app, and --state keeps every app's state \
            (each app's rows under its id). With --port 0 \
            the bound port is printed on stdout as `listening on HOST:PORT`. Exit status 2: bad usage, \
            campaigns, locales or state that do not load.
            """
    )

    @Option(help: ArgumentHelp("The address to listen on; anything but loopback needs --allow-remote.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
    var port = 7780

    @Flag(help: "Allow a --host that is not loopback (the API has no authentication).")
    var allowRemote = false

    @OptionGroup var catalog: CatalogOptions

    @Option(help: ArgumentHelp("Serve the apps of this JSON file (docs/http.md \"Apps\"), each with its own keys, campaigns, locales and state.", valueName: "file"))
    var apps: String?

    @OptionGroup var presenceOptions: PresenceOptions

    @OptionGroup var retentionOptions: RetentionOptions

    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var metricsOptions: MetricsOptions

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"), transform: Serve.level)
    var logLevel: Logger.Level = .info

    @Flag(help: "Serve the campaign console's pages on the same port (docs/console.md).")
    var console = false

    @OptionGroup var consoleOptions: ConsoleOptions

    func run() async throws {
        signal(SIGHUP, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        do {
            try ServerConfiguration(host: host, port: port, allowRemote: allowRemote).validate()
            try metricsOptions.validate(allowRemote: allowRemote)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        let consoleSettings = console ? try consoleOptions.settings(catalog: catalog, host: host, hasState: stateOptions.state != nil) : nil
        Serve.bootstrapLogging(logLevel)
        let logger = Logger(label: "beaconrules.http")
        let metrics = metricsOptions.endpoint()
        let served: RulesApps
        let sources: [String: AppCatalogSource]
        if let apps {
            (served, sources) = try loadApps(file: apps, metrics: metrics, logger: logger)
            try await AppsLoading.openStates(served)
        } else {
            let rules = try await loadSingle(metrics: metrics, logger: logger)
            served = RulesApps(single: rules)
            let catalog = self.catalog
            sources = [served.apps[0].definition.id: { catalog.read() }]
        }
        let host = self.host
        let app = buildApplication(apps: served, settings: HTTPSettings(host: host, port: port, console: consoleSettings), logger: logger) { port in
            // Tests and scripts read the port from here when --port is 0.
            OutputSink(fd: 1).write(Array("listening on \(host):\(port)\n".utf8))
        }
        // The metrics port first: the group stops services in reverse order.
        let metricsPort = metrics.map { [metricsOptions.service($0, logger: logger) { await served.isReady }] } ?? []
        let group = ServiceGroupConfiguration(
            services: metricsPort + [
                .init(service: app),
                .init(service: RulesReloader(apps: served, sources: sources, logger: logger), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        try await ServiceGroup(configuration: group).run()
    }

    /// The one app of `--campaigns`, `--locales` and `--state`.
    private func loadSingle(metrics: MetricsEndpoint?, logger: Logger) async throws -> RulesService {
        let (campaigns, locales) = try catalog.load { warning in logger.warning("\(warning)") }
        let rules: RulesService
        do {
            // The service opens the store itself, on its own owner.
            rules = try RulesService(
                catalog: RulesCatalog(campaigns: campaigns, locales: locales), state: stateOptions.storage(),
                presence: try presenceOptions.settings(campaigns: campaigns), retention: retentionOptions.retention, logger: logger,
                metrics: metrics?.factory ?? NOOPMetricsHandler.instance)
            // A database is connected now: one that does not open stops `http` here.
            try await rules.openState()
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        return rules
    }

    /// Every app of `--apps FILE`, each its own service with the `app` label on its metrics; exit
    /// 2 naming the file's problems, or the app whose campaigns or locales do not load.
    private func loadApps(file: String, metrics: MetricsEndpoint?, logger: Logger) throws -> (RulesApps, [String: AppCatalogSource]) {
        let apps = try AppsLoading.load(
            file: file, catalog: catalog, state: stateOptions, presence: presenceOptions, retention: retentionOptions, logger: logger,
            metrics: metrics?.factory ?? NOOPMetricsHandler.instance)
        var sources: [String: AppCatalogSource] = [:]
        for app in apps.apps {
            let definition = app.definition
            sources[definition.id] = { Result { () throws(CampaignLoadError) in try RulesApps.catalog(of: definition) } }
        }
        return (apps, sources)
    }
}

/// Reads one app's campaigns and locales again (SIGHUP).
typealias AppCatalogSource = @Sendable () -> Result<RulesCatalog, CampaignLoadError>

/// SIGHUP reloads every app's campaign and locale files into its service; an app whose files do
/// not load keeps its loaded set, and the log names it.
struct RulesReloader: Service {
    let apps: RulesApps
    let sources: [String: AppCatalogSource]
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            for app in apps.apps {
                guard let source = sources[app.definition.id] else { continue }
                switch source() {
                case .success(let loaded): await app.rules.reload(loaded)
                case .failure(let error):
                    logger.error("reload failed; the app's loaded campaigns stay", metadata: [
                        "app": "\(app.definition.id)", "errors": "\(error.diagnostics.map(\.description))"])
                }
            }
        }
    }
}

extension RulesApps {
    /// Every app ready (`/ready`).
    var isReady: Bool {
        get async {
            for app in apps where !(await app.rules.isReady) { return false }
            return true
        }
    }
}
