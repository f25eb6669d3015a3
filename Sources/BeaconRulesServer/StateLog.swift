package import BeaconRules
package import BeaconRulesStore

/// An `AnswerLog` with the transactions the `EngineOwner` brackets each batch of jobs in, and a
/// close. `SQLiteStateStore` is one (`--state`); `MemoryStateLog` is the one without a file.
///
/// Not `Sendable`: the owner thread makes every call.
package protocol StateLog: AnyObject, AnswerLog {
    func begin() throws(StoreError)
    func commit() throws(StoreError)
    func rollback()
    func close()
    /// Answered events the log holds (the metrics' `beaconrules_answers_held`).
    var heldAnswers: Int { get }
    /// The state file's size with its write-ahead log, or nil in memory.
    var fileBytes: Int? { get }
    /// The WAL's checkpoints and bytes written so far (running totals), nil without a WAL.
    var walActivity: SQLiteStateStore.WALActivity? { get }
    /// The replies of the last commit are on their way: work a commit left for between two
    /// transactions runs now, before the next `begin()` (the state file's last checkpoint frames).
    func repliesSent()
    /// The owner is idle (nothing waiting): one short step of work kept for such moments (the
    /// state file's journal folded a few rows at a time); whether another step is due.
    func idleStep() -> Bool
}

extension StateLog {
    package var walActivity: SQLiteStateStore.WALActivity? { nil }
    /// Nothing left for between transactions.
    package func repliesSent() {}
    /// Nothing kept for idle moments.
    package func idleStep() -> Bool { false }
}

extension SQLiteStateStore: StateLog {
    package var fileBytes: Int? { path == ":memory:" ? nil : HeldState.fileBytes(at: path) }
    /// The WAL's last frames copied back, if a commit left them (`checkpointStep()`), and a step
    /// of the journal's fold if the idle moments fell behind (`catchUpStep()`).
    package func repliesSent() {
        checkpointStep()
        catchUpStep()
    }
    /// A step of the journal's fold (`foldStep()`).
    package func idleStep() -> Bool {
        foldStep()
    }
}
