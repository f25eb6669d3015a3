package import BeaconRulesService
package import Hummingbird
package import Logging

/// Where `beaconrules http` listens.
package struct HTTPSettings: Sendable {
    package var host: String
    /// 0 picks a free port; the bound one is passed to `onListening`.
    package var port: Int
    /// The largest request body, in bytes.
    package var maximumBody: Int
    /// The campaign console's pages on the same port (`--console`), nil: none.
    package var console: ConsoleSettings?

    package init(host: String = "127.0.0.1", port: Int = 7780, maximumBody: Int = 16 << 20, console: ConsoleSettings? = nil) {
        self.host = host
        self.port = port
        self.maximumBody = maximumBody
        self.console = console
    }
}

/// The HTTP front on `apps`: the routes of every group (`EventRoutes`, `ResolverRoutes`), each
/// request served by the app its `X-Api-Key` names (`AppKey`), on a Hummingbird application
/// that runs every app's service as one of its services, so that the state closes after the
/// server has stopped answering (graceful shutdown through ServiceLifecycle).
package func buildApplication(
    apps: RulesApps, settings: HTTPSettings, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    EventRoutes(apps: apps, maximumBody: settings.maximumBody).add(to: router)
    ResolverRoutes(apps: apps, maximumBody: settings.maximumBody).add(to: router)
    if let console = settings.console { ConsoleRoutes(apps: apps, settings: console).add(to: router) }
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "beaconrules"),
        services: apps.apps.map(\.rules),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.port) },
        logger: logger)
}

/// The HTTP front on one service (no apps file: every request is its).
package func buildApplication(
    rules: RulesService, settings: HTTPSettings, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    buildApplication(apps: RulesApps(single: rules), settings: settings, logger: logger, onListening: onListening)
}
