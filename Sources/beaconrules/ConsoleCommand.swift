import ArgumentParser
import BeaconRulesHTTP
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesService
import CoreMetrics
import Logging
import ServiceLifecycle
import UnixSignals
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules console`: the campaign console (`ConsoleRoutes`) on its own port, on one
/// `RulesService` of the campaign files it edits. A thin shell: options, loading, the service group.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Serve the campaign console: every campaign previewed per language, tried, edited and measured, in a browser.",
        discussion: """
            Pages (docs/console.md): / (every campaign and its status), /campaigns/EID (phone previews \
            per language and trigger), /campaigns/EID/edit (lint as you type; a save writes the file \
            atomically and reloads), /translations and /translations.csv, /try (one event's verdicts), \
            /results (funnels with --state; an uploaded trace's timeline). Loopback by default; on any \
            other host it does not start without --token-file. With --port 0 the bound port is printed \
            on stdout as `listening on HOST:PORT`. With --apps FILE, / lists the file's apps and each \
            app's pages are under /apps/ID/, each with its campaigns, locales and state (every app's \
            rows in the one --state). Exit status 2: bad usage, campaigns, locales or state that do not \
            load, or a host off loopback without a token.
            """
    )

    @Option(help: ArgumentHelp("The address to listen on; anything but loopback needs --token-file.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one.", valueName: "port"))
    var port = 7790

    @OptionGroup var catalog: CatalogOptions

    @Option(help: ArgumentHelp("The console of the apps of this JSON file (docs/http.md \"Apps\"): each app's pages under /apps/ID/.", valueName: "file"))
    var apps: String?

    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var consoleOptions: ConsoleOptions

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"), transform: Serve.level)
    var logLevel: Logger.Level = .notice

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let console = try consoleOptions.settings(catalog: catalog, host: host, hasState: stateOptions.state != nil)
        Serve.bootstrapLogging(logLevel)
        let logger = Logger(label: "beaconrules.console")
        let served: RulesApps
        if let apps {
            served = try AppsLoading.load(
                file: apps, catalog: catalog, state: stateOptions, presence: try PresenceOptions.parse([]), retention: try RetentionOptions.parse([]),
                logger: logger, metrics: NOOPMetricsHandler.instance)
            try await AppsLoading.openStates(served)
        } else {
            let (campaigns, locales) = try catalog.load { warning in logger.warning("\(warning)") }
            let rules: RulesService
            do {
                rules = try RulesService(catalog: RulesCatalog(campaigns: campaigns, locales: locales), state: stateOptions.storage(), logger: logger)
                // A database is connected now: one that does not open stops `console` here.
                try await rules.openState()
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            served = RulesApps(single: rules)
        }
        let host = self.host
        let app = buildConsoleApplication(apps: served, console: console, host: host, port: port, logger: logger) { port in
            OutputSink(fd: 1).write(Array("listening on \(host):\(port)\n".utf8))
        }
        let group = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await ServiceGroup(configuration: group).run()
    }
}
