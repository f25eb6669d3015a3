import Foundation
import Synchronization

/// Copies the WAL back into the state file on a thread and SQLite connection of its own, so the
/// commits that answer events never run a checkpoint (SQLite's automatic ones take 14-98 ms inside
/// the commit that crosses 1,000 frames).
///
/// The owner calls `walGrew(frames:)` after each commit; past `threshold` frames the thread wakes
/// and runs a PASSIVE checkpoint, which never blocks the writer. Once everything is copied, the
/// writer's next transaction starts the WAL over from its beginning, so the file stays near
/// `threshold` frames. The bound when the thread falls behind is the owner's (`SQLiteStateStore`).
final class WALCheckpointer: Sendable {
    /// How far the thread has got, for the owner, the metrics and tests.
    struct Progress: Sendable {
        /// Checkpoints the thread has run.
        var checkpoints = 0
        /// Set by `walGrew`, cleared when the thread takes the request.
        var requested = false
        var running = false
        var paused = false
        var stopping = false
        /// Why the thread could not open its connection, if it could not (it stops then; the
        /// owner's bound on the WAL holds).
        var failure: StoreError?
        /// The last checkpoint that failed for another reason than a busy file (tried again at
        /// the next request).
        var lastFailure: StoreError?
        /// Checkpoints that failed (a busy file is not a failure), the open that failed included.
        var failures = 0
        /// For tests: every checkpoint fails with this error instead of running.
        var injectedFailure: StoreError?
    }

    /// Frames (pages of the file, 4 KiB by default) in the WAL before a checkpoint is asked for.
    let threshold: Int
    private let progress = Mutex(Progress())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread, which opens its own connection to `path`.
    init(path: String, threshold: Int) {
        self.threshold = threshold
        let thread = Thread { [self] in run(path: path) }
        thread.name = "beaconrules-checkpointer"
        thread.start()
    }

    var state: Progress { progress.withLock { $0 } }

    /// The owner's commit left `frames` frames in the WAL.
    func walGrew(frames: Int) {
        guard frames >= threshold else { return }
        let wakeUp = progress.withLock { progress in
            defer { progress.requested = true }
            return !progress.requested
        }
        if wakeUp { wake.signal() }
    }

    /// Stops the thread after its current checkpoint and closes its connection.
    func stop() {
        let running = progress.withLock { progress in
            defer { progress.stopping = true }
            return !progress.stopping
        }
        guard running else { return }
        wake.signal()
        finished.wait()
    }

    /// For tests: holds checkpoints back (as a thread that falls behind would), or lets them run.
    func pause(_ paused: Bool) {
        progress.withLock { $0.paused = paused }
        if !paused { wake.signal() }
    }

    /// For tests: returns once no checkpoint is asked for or running (or the thread has stopped).
    func waitUntilIdle() {
        while progress.withLock({ ($0.requested || $0.running) && !$0.paused && $0.failure == nil && !$0.stopping }) {
            usleep(1000)
        }
    }

    /// For tests: makes every checkpoint from now on fail with `error` (nil: run them again).
    func failCheckpoints(with error: StoreError?) {
        progress.withLock { $0.injectedFailure = error }
    }

    /// A checkpoint that could not run because another connection held the file (tried again at
    /// the next request): not a failure.
    static func isBusy(_ error: StoreError) -> Bool { error.message.contains("in use by another") }

    private func run(path: String) {
        defer { finished.signal() }
        let db: SQLiteConnection
        do throws(StoreError) {
            db = try SQLiteConnection(path: path)
            // FULL: the checkpoint syncs the file before the WAL may be started over.
            try db.execute("PRAGMA synchronous = FULL")
        } catch {
            progress.withLock { progress in
                progress.failure = error
                progress.lastFailure = error
                progress.failures += 1
            }
            return
        }
        defer { db.close() }
        while true {
            wake.wait()
            let go = progress.withLock { progress in
                if progress.stopping || progress.paused || !progress.requested { return false }
                progress.requested = false
                progress.running = true
                return true
            }
            if progress.withLock({ $0.stopping }) { return }
            guard go else { continue }
            var failure = progress.withLock { $0.injectedFailure }
            if failure == nil {
                do throws(StoreError) { try db.checkpoint(truncate: false) } catch { failure = error }
            }
            progress.withLock { progress in
                progress.running = false
                // A busy file (the owner's own fallback checkpoint under way) is retried at the
                // next request; anything else is kept for the owner to see.
                if let failure, !Self.isBusy(failure) {
                    progress.lastFailure = failure
                    progress.failures += 1
                } else {
                    progress.checkpoints += 1
                }
            }
        }
    }
}
