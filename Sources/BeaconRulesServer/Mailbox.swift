import Foundation

/// The queue between the connections and the owner thread.
///
/// `@unchecked Sendable`: every stored property is read and written only while holding `condition`.
final class Mailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [EngineOwner.Job] = []
    private var closed = false
    private var done = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Queues a job; false once the owner is stopping.
    func post(_ job: EngineOwner.Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Everything queued, waiting while nothing is (at most `limit` seconds: then it returns an
    /// empty list); nil when closed and drained.
    func takeAll(waitingAtMost limit: TimeInterval? = nil) -> [EngineOwner.Job]? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = limit.map { Date(timeIntervalSinceNow: $0) }
        while jobs.isEmpty && !closed {
            if let deadline {
                if !condition.wait(until: deadline) && jobs.isEmpty && !closed { return [] }
            } else {
                condition.wait()
            }
        }
        if jobs.isEmpty { return nil }
        let taken = jobs
        jobs = []
        return taken
    }

    func close(then continuation: CheckedContinuation<Void, Never>) {
        condition.lock()
        if done {
            condition.unlock()
            continuation.resume()
            return
        }
        closed = true
        closeWaiters.append(continuation)
        condition.signal()
        condition.unlock()
    }

    /// Called by the owner thread as it exits.
    func finished() {
        condition.lock()
        done = true
        let waiters = closeWaiters
        closeWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }
}
