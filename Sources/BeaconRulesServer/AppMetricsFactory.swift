package import CoreMetrics

/// One app's metrics in a process serving several (`--apps FILE`): every metric the app's
/// service records carries the dimension `app` = its id, into the process's one factory, so
/// that a scrape shows each app's counts apart under the same names (`ServeMetrics`).
package struct AppMetricsFactory: MetricsFactory {
    /// Where the metrics go.
    package let base: any MetricsFactory
    /// The app's id, the `app` label.
    package let app: String

    package init(base: any MetricsFactory, app: String) {
        self.base = base
        self.app = app
    }

    private func labelled(_ dimensions: [(String, String)]) -> [(String, String)] {
        [("app", app)] + dimensions
    }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        base.makeCounter(label: label, dimensions: labelled(dimensions))
    }

    package func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: labelled(dimensions))
    }

    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        base.makeMeter(label: label, dimensions: labelled(dimensions))
    }

    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        base.makeRecorder(label: label, dimensions: labelled(dimensions), aggregate: aggregate)
    }

    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        base.makeTimer(label: label, dimensions: labelled(dimensions))
    }

    package func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { base.destroyFloatingPointCounter(handler) }
    package func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    package func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    package func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}
