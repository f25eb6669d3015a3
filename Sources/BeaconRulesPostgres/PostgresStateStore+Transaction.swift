package import BeaconRules
package import BeaconRulesStore
import NIOCore

/// *Prepare async, decide sync, commit async*, with the retry that makes it whole: the one way a
/// driver runs a transaction on the database.
extension PostgresStateStore {
    /// Attempts at most this many runs of one transaction: each retry adds what the last read
    /// without its being prepared, so the second run reads everything in practice (a third runs
    /// only when the second reached further, e.g. presence taken over meanwhile).
    static var mostAttempts: Int { 8 }

    /// Runs `attempt` (the pipeline, synchronously, against memory) in one transaction: begins,
    /// prepares `reads`, runs it, and commits what it changed. When the attempt read what was not
    /// prepared (`takeMisses()`), nothing of it is committed: the transaction is rolled back, the
    /// missed reads are added to `reads`, `retry` takes back what the attempt changed in memory
    /// outside the store (the ledger, presence, the output), and the attempt runs again, with the same
    /// lines, so it decides the same and more is locked (in hash order, with the rest). On an
    /// error, the transaction is rolled back and the error thrown.
    nonisolated(nonsending) package func transaction<T>(
        reading reads: TransactionReads, _ attempt: () throws -> T, retry: () -> Void
    ) async throws -> T {
        var reads = reads
        // An attempt that claimed presence `.gained` read the saved state into memory, which
        // `retry` takes back: the next attempt must be told `.gained` again.
        let stale = presenceStale
        for _ in 1...Self.mostAttempts {
            do {
                try await begin()
                try await prepare(reads)
                // The engine runs on its owner only: on its loop when it has one (`connect(on:)`).
                session.eventLoop?.preconditionInEventLoop()
                let result = try attempt()
                let missed = takeMisses()
                if missed.isEmpty {
                    try await commit()
                    return result
                }
                await rollback()
                presenceStale = stale
                reads.formUnion(missed)
            } catch {
                await rollback()
                throw error
            }
            retry()
        }
        throw StoreError(path: location.description, message: "the transaction read more state on each of \(Self.mostAttempts) attempts; nothing of it was saved")
    }
}
