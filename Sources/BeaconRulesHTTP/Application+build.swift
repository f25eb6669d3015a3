public import BeaconRulesService
public import Hummingbird
public import Logging

/// Where `beaconrules http` listens.
public struct HTTPSettings: Sendable {
    public var host: String
    /// 0 picks a free port; the bound one is passed to `onListening`.
    public var port: Int
    /// The largest request body, in bytes.
    public var maximumBody: Int

    public init(host: String = "127.0.0.1", port: Int = 7780, maximumBody: Int = 16 << 20) {
        self.host = host
        self.port = port
        self.maximumBody = maximumBody
    }
}

/// The HTTP front on `rules`: its routes (`EventRoutes`) on a Hummingbird application that runs
/// `rules` as one of its services, so that the state closes after the server has stopped
/// answering (graceful shutdown through ServiceLifecycle).
public func buildApplication(
    rules: RulesService, settings: HTTPSettings, logger: Logger,
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    EventRoutes(rules: rules, maximumBody: settings.maximumBody).add(to: router)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "beaconrules"),
        services: [rules],
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.port) },
        logger: logger)
}
