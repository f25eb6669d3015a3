import Foundation

/// The queue of the `EngineOwner`'s thread: `serve`'s jobs from the connections, and the tasks of
/// the actor whose executor the owner is (`RulesService`), in arrival order.
///
/// `@unchecked Sendable`: every stored property is read and written only while holding `condition`.
final class Mailbox: @unchecked Sendable {
    /// One piece of work for the owner's thread.
    enum Entry: Sendable {
        /// `serve`'s work: applied in transactions.
        case job(EngineOwner.Job)
        /// A task of the actor isolated to the owner: run as it comes.
        case task(UnownedJob)
    }

    private let condition = NSCondition()
    private var jobs: [Entry] = []
    private var closed = false
    private var done = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Queues a job; false once the owner is stopping.
    func post(_ job: Entry) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Everything queued, waiting while nothing is (at most `limit` seconds: then it returns an
    /// empty list); nil when closed and drained. `busy`: the owner awaits work it took (a task
    /// will be posted when it resumes), so a closed mailbox is waited on too.
    func takeAll(waitingAtMost limit: TimeInterval? = nil, whileBusy busy: Bool = false) -> [Entry]? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = limit.map { Date(timeIntervalSinceNow: $0) }
        while jobs.isEmpty && (!closed || busy) {
            if let deadline {
                if !condition.wait(until: deadline) && jobs.isEmpty && (!closed || busy) { return [] }
            } else {
                condition.wait()
            }
        }
        if jobs.isEmpty { return nil }
        let taken = jobs
        jobs = []
        return taken
    }

    /// Whether anything is queued (the owner does idle work only while nothing is).
    var isEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return jobs.isEmpty
    }

    /// Queues an actor's task. Never refused: an executor runs every job it is given, and none
    /// comes once the owner is released (each holds its actor, which holds the owner).
    func post(task: UnownedJob) {
        condition.lock()
        defer { condition.unlock() }
        precondition(!done, "a task enqueued on an engine owner whose thread has ended")
        jobs.append(.task(task))
        condition.signal()
    }

    /// Takes no more jobs; the owner's thread ends once it has taken what is queued.
    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// As `close()`, and `continuation` is resumed once the owner's thread has ended.
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
