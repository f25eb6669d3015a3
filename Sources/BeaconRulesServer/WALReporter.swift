import BeaconRulesStore
import Logging

/// Turns the state file's running WAL totals (`SQLiteStateStore.WALActivity`) into the metrics'
/// increments, and logs each checkpoint failure: a checkpointer that keeps failing lets the WAL
/// grow to its bound and every commit checkpoint itself, which an operator must hear about.
///
/// Owned by the owner loop, which calls `report` after each commit.
struct WALReporter {
    private var last = SQLiteStateStore.WALActivity()

    mutating func report(_ now: SQLiteStateStore.WALActivity, metrics: ServeMetrics, logger: Logger) {
        let failed = now.failedCheckpoints - last.failedCheckpoints
        metrics.wal(checkpoints: now.checkpoints - last.checkpoints, failed: failed, bytes: now.bytesWritten - last.bytesWritten)
        if failed > 0 {
            logger.error(
                "WAL checkpoint failed; the commits will checkpoint themselves once the WAL reaches its bound",
                metadata: ["error": "\(now.lastFailure.map { "\($0)" } ?? "unknown")", "failures": "\(now.failedCheckpoints)"])
        }
        last = now
    }
}
