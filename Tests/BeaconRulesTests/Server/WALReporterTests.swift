@testable import BeaconRulesServer
import BeaconRulesStore
import Logging
import MetricsTestKit
import Synchronization
import Testing

/// The state file's WAL totals reach the metrics as increments, and each checkpoint failure is
/// logged with its reason.
@Suite("WAL checkpoints and bytes in the metrics and the log")
struct WALReporterTests {
    /// Log lines kept for the test to read.
    final class Captured: Sendable {
        let lines = Mutex<[(Logger.Level, String, String)]>([])
    }

    struct CapturingHandler: LogHandler {
        let captured: Captured
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            captured.lines.withLock { $0.append((event.level, "\(event.message)", "\(event.metadata?["error"] ?? "")")) }
        }
    }

    @Test func checkpointsAndBytesAreCountedOnceAndEachFailureIsLogged() throws {
        let metrics = TestMetrics()
        let serveMetrics = ServeMetrics(factory: metrics)
        let captured = Captured()
        let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        var reporter = WALReporter()
        var activity = SQLiteStateStore.WALActivity()

        activity.checkpoints = 3
        activity.bytesWritten = 40_960
        reporter.report(activity, metrics: serveMetrics, logger: logger)
        // Nothing new: nothing added, nothing logged.
        reporter.report(activity, metrics: serveMetrics, logger: logger)
        activity.checkpoints = 4
        activity.failedCheckpoints = 2
        activity.lastFailure = StoreError(path: "state.db", message: "disk I/O error")
        activity.bytesWritten = 49_152
        reporter.report(activity, metrics: serveMetrics, logger: logger)

        #expect(try metrics.expectCounter("beaconrules_checkpoints_total", [("result", "ok")]).totalValue == 4)
        #expect(try metrics.expectCounter("beaconrules_checkpoints_total", [("result", "failed")]).totalValue == 2)
        #expect(try metrics.expectCounter("beaconrules_wal_bytes_total").totalValue == 49_152)
        let lines = captured.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.0 == .error)
        #expect(lines.first?.1.contains("WAL checkpoint failed") == true)
        #expect(lines.first?.2 == "state.db: disk I/O error")
    }

    @Test func everyNameIsInTheList() {
        for name in ["beaconrules_checkpoints_total", "beaconrules_wal_bytes_total"] {
            #expect(ServeMetrics.names.contains(name))
        }
    }
}
