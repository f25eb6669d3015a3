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
        abstract: "Serve the rules over HTTP: POST /events, POST /responses, GET /campaigns, POST /explain.",
        discussion: """
            POST /events with one JSON event answers its records as a JSON array (400 with replay's \
            message when it is not an event); with NDJSON (several lines, or Content-Type \
            application/x-ndjson) one reply line per line, as `serve` answers. Each answer is sent \
            only once its state change is committed; an event id seen before is answered with the same \
            records. SIGTERM/SIGINT: stop accepting, answer what was read, close the state, exit 0. \
            SIGHUP: reload the campaign and locale files (on failure the old set stays). With --port 0 \
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
        let (campaigns, locales) = try catalog.load { warning in logger.warning("\(warning)") }
        let metrics = metricsOptions.endpoint()
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
        let host = self.host
        let app = buildApplication(rules: rules, settings: HTTPSettings(host: host, port: port, console: consoleSettings), logger: logger) { port in
            // Tests and scripts read the port from here when --port is 0.
            OutputSink(fd: 1).write(Array("listening on \(host):\(port)\n".utf8))
        }
        let catalog = self.catalog
        // The metrics port first: the group stops services in reverse order.
        let metricsPort = metrics.map { [metricsOptions.service($0, logger: logger) { await rules.isReady }] } ?? []
        let group = ServiceGroupConfiguration(
            services: metricsPort + [
                .init(service: app),
                .init(service: RulesReloader(rules: rules, catalog: catalog, logger: logger), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        try await ServiceGroup(configuration: group).run()
    }
}

/// SIGHUP reloads the campaign and locale files into the service; on an error the old set stays.
struct RulesReloader: Service {
    let rules: RulesService
    let catalog: CatalogOptions
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            switch catalog.read() {
            case .success(let loaded): await rules.reload(loaded)
            case .failure(let error):
                logger.error("reload failed; the loaded campaigns stay", metadata: ["errors": "\(error.diagnostics.map(\.description))"])
            }
        }
    }
}
