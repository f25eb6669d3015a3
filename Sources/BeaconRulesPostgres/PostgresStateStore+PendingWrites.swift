import BeaconRulesStore
import NIOCore
import PostgresNIO

/// `commit()`'s first part: the writes the pipeline asked for while it ran (`PendingWrites`).
extension PostgresStateStore {
    /// The writes kept since `begin()`, in the order they came.
    nonisolated(nonsending) func runPending() async throws(StoreError) {
        let writes = pending.writes
        pending.writes.removeAll()
        for write in writes {
            switch write {
            case .ledger(let lines): try await writeLedger(lines)
            case .outbox(let records):
                try await session.run("INSERT INTO outbox (app, records, at) VALUES (\(app), \(ByteBuffer(bytes: records)), \(clock))")
            case .presence(let snapshot):
                try await session.run("INSERT INTO presence (app, snapshot) VALUES (\(app), \(ByteBuffer(bytes: snapshot))) ON CONFLICT (app) DO UPDATE SET snapshot = excluded.snapshot")
            case .forgetAnswers(let before, let limit): _ = try await deleteAnswers(before: before, limit: limit)
            case .forgetFirings(let expiry, let limit): _ = try await sweepFirings(expiry, limit: limit)
            case .forgetSavedDeliveries(let cutoff, let window, let limit):
                _ = try await sweepSavedDeliveries(windowEndedBy: cutoff, window: window, limit: limit)
            }
        }
    }
}
