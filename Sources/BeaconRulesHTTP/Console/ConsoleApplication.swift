package import BeaconRulesService
package import Hummingbird
package import Logging
import ServiceLifecycle

/// `beaconrules console`: the console's routes alone on their own port (7790 by default), on the
/// services of `apps`, which run with the application and close after it has stopped answering.
package func buildConsoleApplication(
    apps: RulesApps, console: ConsoleSettings, host: String, port: Int, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    ConsoleRoutes(apps: apps, settings: console).add(to: router)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "beaconrules-console"),
        services: apps.apps.map { app -> any Service in app.rules },
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        logger: logger)
}
