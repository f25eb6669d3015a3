package import BeaconRules
package import NIOCore

/// The state of a database that many instances share, whose round trips are awaited: the
/// engine's store and the pipeline's log in one (BeaconRulesPostgres's store is one; the server
/// knows it only by this protocol, so that it compiles no database driver).
///
/// The engine reads state synchronously and does no I/O, so a transaction is *prepare async,
/// decide sync, commit async*: `transaction(reading:_:retry:)` locks and reads what the batch
/// names (`TransactionReads`), runs the pipeline against memory, and writes back and commits;
/// an attempt that read what was not read ahead is rolled back and run again with it.
///
/// Not `Sendable`: one owner makes every call, on its executor (its async methods are
/// `nonisolated(nonsending)`).
package protocol SharedStateLog: AnyObject, AnswerLog {
    /// Runs `attempt` (the pipeline, synchronously) in one transaction with `reads` read first,
    /// and commits; when the attempt read what was not read, rolls back, calls `retry` (the caller
    /// takes back what the attempt changed in memory) and runs it again with that read too. On an
    /// error, rolls back and throws.
    nonisolated(nonsending) func transaction<T>(reading reads: TransactionReads, _ attempt: () throws -> T, retry: () -> Void) async throws -> T
    /// Ends the connection without waiting (an open transaction ends with it, rolled back).
    func close()
    /// Makes its connections from now on on `eventLoop`, the one its owner runs on: a round trip
    /// then resumes the owner on the thread that read the answer, with no hop between threads.
    /// Called before the first transaction (a connection already open is closed, not in use).
    func connect(on eventLoop: any EventLoop)
}
