/// Calls of the service one at a time, in the order they came, across their awaits: an actor
/// runs one call at a time only until it awaits (a database round trip), and a transaction must
/// not start while another awaits its commit. First come, first served.
///
/// Not `Sendable`: the service's actor makes every call, on its executor.
final class ServiceTurns {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits for the turn (at once when none is taken).
    nonisolated(nonsending) func enter() async {
        if !taken {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next waiting, in order.
    func leave() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
