import NIOCore
import Synchronization

/// The queue between the connections' event loops and the engine's loop when the engine runs on
/// an event loop (no state file): each read's lines are one job, and however many jobs arrive
/// from however many loops, the engine's loop is woken once for all that queued up meanwhile
/// (`post` says when a wake is due), and applies them in arrival order as one batch.
///
/// Bounded by the connections' own limits: each connection has at most `linesInFlight` lines
/// submitted and not yet answered, and once `close()` is called nothing more is taken in.
final class EngineInbox: Sendable {
    private struct State {
        var jobs: [EngineOwner.Job] = []
        /// A drain is scheduled on the engine's loop and has not taken the jobs yet.
        var draining = false
        var closed = false
    }

    /// What `post` did with a job.
    enum Posted {
        /// Queued behind a drain already scheduled.
        case queued
        /// Queued, and the caller must schedule a drain on the engine's loop.
        case wake
        /// Not queued: the owner is stopping.
        case refused
    }

    private let state = Mutex(State())

    /// Queues `job`, in arrival order.
    func post(_ job: EngineOwner.Job) -> Posted {
        state.withLock { state in
            if state.closed { return .refused }
            state.jobs.append(job)
            if state.draining { return .queued }
            state.draining = true
            return .wake
        }
    }

    /// Everything queued, in order (on the engine's loop); the next `post` schedules a new drain.
    func takeAll() -> [EngineOwner.Job] {
        state.withLock { state in
            state.draining = false
            return Self.take(&state)
        }
    }

    /// Everything queued, in order, leaving a scheduled drain to find nothing (on the engine's
    /// loop, when one of its own connections submits: their jobs go first, as they came first);
    /// nil once closed.
    func takeQueued() -> [EngineOwner.Job]? {
        state.withLock { $0.closed ? nil : Self.take(&$0) }
    }

    private static func take(_ state: inout State) -> [EngineOwner.Job] {
        if state.jobs.isEmpty { return [] }
        let taken = state.jobs
        state.jobs = []
        state.jobs.reserveCapacity(taken.count)
        return taken
    }

    /// Takes nothing more in; what is queued stays, for a last `takeAll()`.
    func close() {
        state.withLock { $0.closed = true }
    }
}
