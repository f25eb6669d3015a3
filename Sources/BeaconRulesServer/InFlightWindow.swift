import Synchronization

/// Bounds the lines of one connection that are read but not yet answered.
///
/// The reader acquires before it submits, the writer releases after the reply is written. When a
/// client stops reading, writes stall, releases stop, the reader stops, and NIO stops reading the
/// socket: the client's own TCP window fills and it alone waits.
final class InFlightWindow: Sendable {
    private struct State {
        var inFlight = 0
        var closed = false
        var waiter: (count: Int, continuation: CheckedContinuation<Bool, Never>)?
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Waits until `count` more lines fit (a batch larger than the limit fits when nothing else is
    /// in flight). Returns false once the window is closed: the writer has gone.
    func acquire(_ count: Int) async -> Bool {
        let fitsNow: Bool? = state.withLock { state in
            if state.closed { return false }
            if fits(count, state) {
                state.inFlight += count
                return true
            }
            return nil
        }
        if let fitsNow { return fitsNow }
        return await withCheckedContinuation { continuation in
            let resume: Bool? = state.withLock { state in
                if state.closed { return false }
                if fits(count, state) {
                    state.inFlight += count
                    return true
                }
                state.waiter = (count, continuation)
                return nil
            }
            if let resume { continuation.resume(returning: resume) }
        }
    }

    func release(_ count: Int) {
        let woken: CheckedContinuation<Bool, Never>? = state.withLock { state in
            state.inFlight -= count
            guard let waiter = state.waiter, fits(waiter.count, state) else { return nil }
            state.inFlight += waiter.count
            state.waiter = nil
            return waiter.continuation
        }
        woken?.resume(returning: true)
    }

    /// No more releases will come: wakes the reader with false.
    func close() {
        let woken = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        woken?.resume(returning: false)
    }

    private func fits(_ count: Int, _ state: State) -> Bool {
        state.inFlight == 0 || state.inFlight + count <= limit
    }
}
