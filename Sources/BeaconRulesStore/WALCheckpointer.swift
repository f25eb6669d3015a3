import Foundation
import Synchronization

/// Copies the WAL back into the state file on a thread and SQLite connection of its own, so the
/// commits that answer events never run a checkpoint (SQLite's automatic ones take 14-98 ms inside
/// the commit that crosses 1,000 frames).
///
/// The owner calls `walGrew(frames:cycle:)` after each commit; past `threshold` frames the thread
/// wakes and runs a PASSIVE checkpoint, which never blocks the writer, and notes how far it copied
/// (`Progress.copied`). The WAL starts over from its beginning only when a transaction begins with
/// everything copied; under a steady stream the writer commits while the thread copies, so the
/// owner copies the last few frames itself between two commits (`SQLiteStateStore`), and the file
/// stays near `threshold` frames. The bound when the thread falls behind is the owner's too.
final class WALCheckpointer: Sendable {
    /// How far the thread has got, for the owner, the metrics and tests.
    struct Progress: Sendable {
        /// Checkpoints the thread has run.
        var checkpoints = 0
        /// Set by `walGrew`, cleared when the thread takes the request.
        var requested = false
        /// The owner's count of WAL restarts when it asked (`walGrew`), and when it asked for the
        /// checkpoint that set `copied`: a count from before the WAL started over is stale.
        var requestedCycle = 0
        var copiedCycle = -1
        /// Frames of the WAL the last checkpoint found copied back when it ended (SQLite's count).
        var copied = 0
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

    /// The owner's commit left `frames` frames in the WAL, which has started over `cycle` times.
    func walGrew(frames: Int, cycle: Int = 0) {
        guard frames >= threshold else { return }
        let wakeUp = progress.withLock { progress in
            defer {
                progress.requested = true
                progress.requestedCycle = cycle
            }
            return !progress.requested
        }
        if wakeUp { wake.signal() }
    }

    /// Frames copied back by the thread's last checkpoint in the WAL's `cycle`, when it is idle
    /// (nothing asked for or running); nil when it is busy or copied nothing in this cycle.
    func copiedWhenIdle(cycle: Int) -> Int? {
        progress.withLock { progress in
            guard !progress.requested, !progress.running, progress.copiedCycle == cycle, progress.copied > 0 else { return nil }
            return progress.copied
        }
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
            let go: Int? = progress.withLock { progress in
                if progress.stopping || progress.paused || !progress.requested { return nil }
                progress.requested = false
                progress.running = true
                return progress.requestedCycle
            }
            if progress.withLock({ $0.stopping }) { return }
            guard let cycle = go else { continue }
            var failure = progress.withLock { $0.injectedFailure }
            var copied = 0
            if failure == nil {
                do throws(StoreError) { copied = try db.checkpoint(truncate: false).copied } catch { failure = error }
            }
            progress.withLock { progress in
                progress.running = false
                if failure == nil {
                    progress.copied = copied
                    progress.copiedCycle = cycle
                }
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
