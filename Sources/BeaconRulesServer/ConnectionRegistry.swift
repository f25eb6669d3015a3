import CoreMetrics
import NIOCore
import Synchronization

/// The open connections, so that graceful shutdown can reach each one on its event loop and the
/// server can wait until the last one has closed before it closes the state.
final class ConnectionRegistry: Sendable {
    private struct State {
        var open: [Int: NIOLoopBound<ConnectionHandler>] = [:]
        var opened = 0
        var stopping = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// `beaconrules_connections_open`.
    private let gauge: Gauge

    init(metrics: ServeMetrics = .none) {
        gauge = metrics.connectionsOpen
    }

    /// Registers a new connection: its number, and whether shutdown has already begun.
    func add(_ handler: NIOLoopBound<ConnectionHandler>) -> (number: Int, stopping: Bool) {
        let added = state.withLock { state in
            state.opened += 1
            state.open[state.opened] = handler
            return (state.opened, state.stopping, state.open.count)
        }
        gauge.record(added.2)
        return (added.0, added.1)
    }

    func remove(_ number: Int) {
        let (waiters, open): ([CheckedContinuation<Void, Never>], Int) = state.withLock { state in
            state.open[number] = nil
            guard state.open.isEmpty else { return ([], state.open.count) }
            defer { state.waiters = [] }
            return (state.waiters, 0)
        }
        gauge.record(open)
        for waiter in waiters { waiter.resume() }
    }

    /// Tells every connection, now and later, to answer what it has read and close.
    func shutdownAll() {
        let handlers = state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for handler in handlers { handler.eventLoop.execute { handler.value.shutdown() } }
    }

    /// Returns once no connection is open.
    func waitUntilEmpty() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.open.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
