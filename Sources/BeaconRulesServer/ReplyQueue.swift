import NIOCore
import Synchronization

/// The replies of one connection still to be written, in request order, with a bound on how many
/// request lines may wait for theirs.
///
/// The reader enqueues each chunk's lines (submitting them to the `EngineOwner` under the queue's
/// lock, so a line is either submitted and queued for its reply, or neither); the writer takes
/// replies in order and releases their lines after writing them. When a client stops reading its
/// replies, writes stall, releases stop, the reader waits, NIO stops reading that socket, and the
/// client's own TCP window fills: it alone waits, and it costs the server bounded memory.
final class ReplyQueue: Sendable {
    /// One submission: its replies (once durable) and how many lines they answer.
    typealias Pending = (reply: EventLoopFuture<ByteBuffer>, lines: Int)

    private struct State {
        var inFlight = 0
        var closed = false
        var waiter: (count: Int, continuation: CheckedContinuation<Bool, Never>)?
    }

    private let limit: Int
    private let state = Mutex(State())
    private let continuation: AsyncStream<Pending>.Continuation
    /// What the writer iterates; it ends after `close()`.
    let replies: AsyncStream<Pending>

    init(limit: Int) {
        self.limit = limit
        (replies, continuation) = AsyncStream.makeStream(of: Pending.self)
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Waits until `count` more lines fit (a batch larger than the limit fits when nothing else
    /// waits), then calls `submit` and queues its reply. False, and `submit` not called, once closed.
    func enqueue(_ count: Int, submit: () -> EventLoopFuture<ByteBuffer>) async -> Bool {
        guard await acquire(count) else { return false }
        return state.withLock { state in
            if state.closed { return false }
            continuation.yield((submit(), count))
            return true
        }
    }

    /// The writer has written a reply of `count` lines.
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

    /// Takes no more lines: what is queued is still written, then `replies` ends.
    func close() {
        let woken = state.withLock { state in
            state.closed = true
            continuation.finish()
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        woken?.resume(returning: false)
    }

    private func acquire(_ count: Int) async -> Bool {
        let now: Bool? = state.withLock { state in tryAcquire(count, &state) }
        if let now { return now }
        return await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                let now = tryAcquire(count, &state)
                if now == nil { state.waiter = (count, continuation) }
                return now
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func tryAcquire(_ count: Int, _ state: inout State) -> Bool? {
        if state.closed { return false }
        guard fits(count, state) else { return nil }
        state.inFlight += count
        return true
    }

    private func fits(_ count: Int, _ state: State) -> Bool {
        state.inFlight == 0 || state.inFlight + count <= limit
    }
}
