/// Who copies a state file's WAL back into the file, and when (docs/performance.md).
///
/// `serve` uses `.onThread`; the two others are for `scripts/serve-benchmark.sh` to compare with
/// it in one run (serve's hidden `--checkpoints-in-commits` and `--checkpoints-between-commits`).
package enum CheckpointMode: Sendable, Equatable {
    /// `WALCheckpointer`'s thread copies the bulk while the commits go on; the owner copies the
    /// last few frames between two commits (`checkpointStep()`).
    case onThread
    /// SQLite's own checkpoints, inside the commits, as before the checkpointer thread.
    case inCommits
    /// No thread: the owner copies the WAL back itself, between two commits, so no checkpoint's
    /// fsync of the file runs while a commit syncs the WAL.
    case betweenCommits
}
