import ArgumentParser
import BeaconRulesHTTP
import BeaconRulesReplay
import BeaconRulesServer
import Logging
import ServiceLifecycle

/// `--metrics-port` and `--metrics-host`, the same for `serve` and `http`: Prometheus text on
/// `/metrics`, `/health` and `/ready` (docs/serve.md#metrics).
struct MetricsOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Serve /metrics (Prometheus text), /health and /ready on this port; 0 picks a free one. Default: no metrics port.", valueName: "port"))
    var metricsPort: Int?

    @Option(help: ArgumentHelp("The address of the metrics port; anything but loopback needs --allow-remote.", valueName: "host"))
    var metricsHost = "127.0.0.1"

    /// The loopback rule of `--host`, for the metrics port too.
    func validate(allowRemote: Bool) throws {
        guard let metricsPort else { return }
        try ServerConfiguration(host: metricsHost, port: metricsPort, allowRemote: allowRemote).validate()
    }

    /// The endpoint to record into, when a metrics port is asked for.
    func endpoint() -> MetricsEndpoint? {
        metricsPort == nil ? nil : MetricsEndpoint()
    }

    /// The metrics port as a service; prints `metrics on HOST:PORT` once it listens.
    func service(_ endpoint: MetricsEndpoint, logger: Logger, isReady: @escaping @Sendable () async -> Bool) -> ServiceGroupConfiguration.ServiceConfiguration {
        let host = metricsHost
        let app = endpoint.application(host: host, port: metricsPort ?? 0, logger: logger, isReady: isReady) { port in
            // Tests and scripts read the port from here when --metrics-port is 0.
            OutputSink(fd: 1).write(Array("metrics on \(host):\(port)\n".utf8))
        }
        return .init(service: app)
    }
}
