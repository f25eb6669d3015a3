public import BeaconRules
public import BeaconRulesStore

/// An `AnswerLog` with the transactions the `EngineOwner` brackets each batch of jobs in, and a
/// close. `SQLiteStateStore` is one (`--state`); `MemoryStateLog` is the one without a file.
///
/// Not `Sendable`: the owner thread makes every call.
public protocol StateLog: AnyObject, AnswerLog {
    func begin() throws(StoreError)
    func commit() throws(StoreError)
    func rollback()
    func close()
    /// Answered events the log holds (the metrics' `beaconrules_answers_held`).
    var heldAnswers: Int { get }
    /// The state file's size with its write-ahead log, or nil in memory.
    var fileBytes: Int? { get }
}

extension SQLiteStateStore: StateLog {
    public var fileBytes: Int? { path == ":memory:" ? nil : HeldState.fileBytes(at: path) }
}
