import BeaconRulesServer
package import Hummingbird
package import Logging
import NIOCore
package import Prometheus

/// The operators' port of `serve` and `http` (`--metrics-port`): `GET /metrics` in Prometheus
/// text, `GET /health` (the process answers) and `GET /ready` (campaigns loaded, state open,
/// taking traffic; 503 otherwise), for a scraper and a load balancer.
package struct MetricsEndpoint: Sendable {
    /// Where the metrics are kept between scrapes.
    package let registry: PrometheusCollectorRegistry
    /// Records into `registry`, with the commit-latency and batch-size buckets of `serve`'s
    /// histograms: give it to `ServerConfiguration.metrics` or `RulesService(metrics:)`.
    package let factory: PrometheusMetricsFactory

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["beaconrules_commit_seconds"] = ServeMetrics.commitBuckets
        factory.valueHistogramBuckets["beaconrules_batch_lines"] = ServeMetrics.batchBuckets
        self.factory = factory
    }

    /// The application serving the three routes on `host:port` (0 picks a free port, passed to
    /// `onListening`). `isReady` answers `/ready`.
    package func application(
        host: String, port: Int, logger: Logger, isReady: @escaping @Sendable () async -> Bool,
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        let registry = registry
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("health") { _, _ in Self.text(.ok, "ok\n") }
        router.get("ready") { _, _ in
            await isReady() ? Self.text(.ok, "ready\n") : Self.text(.serviceUnavailable, "not ready\n")
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "beaconrules-metrics"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
