import BeaconRules

/// A transaction's writes besides its firings and answers, kept in memory in the order the
/// pipeline made them while it ran synchronously, and run by `commit()` (the engine does no I/O,
/// and a write is never awaited in the middle of a batch).
struct PendingWrites {
    /// One write, as the `AnswerLog` call that asked for it.
    enum Write {
        /// `saveLedger`: changed ledger lines.
        case ledger([DeliveryLedger.Line])
        /// `appendOutbox`: records that fired on the clock.
        case outbox([UInt8])
        /// `savePresence`: the presence snapshot.
        case presence([UInt8])
        /// `forgetAnswers`: a step of the answer retention.
        case forgetAnswers(before: Int64, limit: Int)
        /// `forgetFirings`: a step of the sweep over `firing`.
        case forgetFirings(FiringExpiry, limit: Int)
        /// `forgetSavedDeliveries`: a step of the sweep over the saved ledger.
        case forgetSavedDeliveries(cutoff: Int64, window: Int64, limit: Int)
    }

    /// In the order they came.
    var writes: [Write] = []
}

/// What `prepare(_:)` read for the open transaction besides firings and answers: the pipeline's
/// synchronous reads are answered from here.
struct PreparedReads {
    /// The record ids whose ledger lines were read, and the lines (JSON, in key order).
    var ledgerLinesOf: Set<String> = []
    var ledgerLines: [[UInt8]] = []
    /// Outbox entries by the sequence number a request reads after.
    var outbox: [Int64: [(seq: Int64, records: [UInt8])]] = [:]
    /// Whether the presence lock was asked for in this transaction.
    var presence = false
    /// The saved presence snapshot, read when this instance holds the presence lock.
    var presenceSnapshot: [UInt8]?
}
