package import CoreMetrics
import Foundation

/// The metrics of `serve`, `http` and `RulesService`: one set of names, defined here only
/// (docs/serve.md#metrics lists them). Recorded through the swift-metrics API into the factory
/// given; the owner counts a batch's lines in plain integers (`BatchCounts`) and records them once
/// per commit, so the hot path pays nothing per event.
package struct ServeMetrics: Sendable {
    /// Every name, as the Prometheus endpoint shows it.
    package static let names = [
        "beaconrules_events_total", "beaconrules_lines_rejected_total", "beaconrules_records_total",
        "beaconrules_commit_seconds", "beaconrules_batch_lines", "beaconrules_answers_held",
        "beaconrules_deliveries_held", "beaconrules_state_file_bytes", "beaconrules_connections_open",
        "beaconrules_reloads_total", "beaconrules_checkpoints_total", "beaconrules_wal_bytes_total",
    ]

    /// The commit-latency buckets, in seconds (an fsync here takes 0.3 ms; a slow commit 50 ms).
    package static let commitBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .seconds(1),
    ]
    /// The batch-size buckets, in lines per commit.
    package static let batchBuckets: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]

    let events: Counter
    let invalidLines: Counter
    let refusedLines: Counter
    let stateNotSaved: Counter
    let notifications: Counter
    let silent: Counter
    let commit: CoreMetrics.Timer
    let batchLines: Recorder
    let answersHeld: Gauge
    let deliveriesHeld: Gauge
    let stateFileBytes: Gauge
    package let connectionsOpen: Gauge
    let reloads: Counter
    let failedReloads: Counter
    let checkpoints: Counter
    let failedCheckpoints: Counter
    let walBytes: Counter

    package init(factory: any MetricsFactory) {
        func rejected(_ reason: String) -> Counter {
            Counter(label: "beaconrules_lines_rejected_total", dimensions: [("reason", reason)], factory: factory)
        }
        events = Counter(label: "beaconrules_events_total", factory: factory)
        invalidLines = rejected("invalid_line")
        refusedLines = rejected("refused")
        stateNotSaved = rejected("state_not_saved")
        notifications = Counter(label: "beaconrules_records_total", dimensions: [("kind", "notification")], factory: factory)
        silent = Counter(label: "beaconrules_records_total", dimensions: [("kind", "silent")], factory: factory)
        commit = CoreMetrics.Timer(label: "beaconrules_commit_seconds", factory: factory)
        batchLines = Recorder(label: "beaconrules_batch_lines", aggregate: true, factory: factory)
        answersHeld = Gauge(label: "beaconrules_answers_held", factory: factory)
        deliveriesHeld = Gauge(label: "beaconrules_deliveries_held", factory: factory)
        stateFileBytes = Gauge(label: "beaconrules_state_file_bytes", factory: factory)
        connectionsOpen = Gauge(label: "beaconrules_connections_open", factory: factory)
        reloads = Counter(label: "beaconrules_reloads_total", dimensions: [("result", "ok")], factory: factory)
        failedReloads = Counter(label: "beaconrules_reloads_total", dimensions: [("result", "failed")], factory: factory)
        checkpoints = Counter(label: "beaconrules_checkpoints_total", dimensions: [("result", "ok")], factory: factory)
        failedCheckpoints = Counter(label: "beaconrules_checkpoints_total", dimensions: [("result", "failed")], factory: factory)
        walBytes = Counter(label: "beaconrules_wal_bytes_total", factory: factory)
    }

    /// Nothing recorded: what `serve` uses without `--metrics-port`.
    package static let none = ServeMetrics(factory: NOOPMetricsHandler.instance)

    /// One commit's counts.
    package func record(_ counts: BatchCounts, commit duration: Duration) {
        if counts.events > 0 { events.increment(by: counts.events) }
        if counts.invalidLines > 0 { invalidLines.increment(by: counts.invalidLines) }
        let refused = counts.rejected - counts.invalidLines
        if refused > 0 { refusedLines.increment(by: refused) }
        if counts.silent > 0 { silent.increment(by: counts.silent) }
        if counts.records > counts.silent { notifications.increment(by: counts.records - counts.silent) }
        if counts.lines > 0 { batchLines.record(counts.lines) }
        commit.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// Lines that were not an event, refused before they reached the pipeline.
    package func invalid(_ lines: Int) {
        if lines > 0 { invalidLines.increment(by: lines) }
    }

    /// Lines that were not kept because the commit failed (each was answered so).
    package func notSaved(_ lines: Int) {
        if lines > 0 { stateNotSaved.increment(by: lines) }
    }

    package func reloaded(_ ok: Bool) {
        (ok ? reloads : failedReloads).increment()
    }

    /// WAL checkpoints done and failed, and bytes written to the WAL, since the last call.
    package func wal(checkpoints: Int, failed: Int, bytes: Int) {
        if checkpoints > 0 { self.checkpoints.increment(by: checkpoints) }
        if failed > 0 { failedCheckpoints.increment(by: failed) }
        if bytes > 0 { walBytes.increment(by: bytes) }
    }

    /// The sizes of what the state holds; `fileBytes` nil in memory.
    package func held(_ sizes: HeldState) {
        answersHeld.record(sizes.answers)
        deliveriesHeld.record(sizes.deliveries)
        if let bytes = sizes.fileBytes { stateFileBytes.record(bytes) }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

/// One commit's lines, counted as plain integers while they are applied.
package struct BatchCounts {
    /// Lines applied (the batch-size histogram).
    package var lines = 0
    /// Beacon events among them.
    package var events = 0
    /// Lines answered with an error, and among them those that were not an event at all.
    package var rejected = 0
    package var invalidLines = 0
    /// Records sent (answers given again included), and among them silent ones.
    package var records = 0
    package var silent = 0

    package init() {}
}

/// How much the state holds, sampled at most once a second by its owner.
package struct HeldState {
    package var answers: Int
    package var deliveries: Int
    package var fileBytes: Int?

    package init(answers: Int, deliveries: Int, fileBytes: Int?) {
        self.answers = answers
        self.deliveries = deliveries
        self.fileBytes = fileBytes
    }

    /// The size of an SQLite file with its write-ahead log.
    package static func fileBytes(at path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }
}
