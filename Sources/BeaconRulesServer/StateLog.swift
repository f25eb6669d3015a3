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
    /// Whether the log wants `lock(devices:answersOf:)` called at the start of each transaction
    /// (a database shared by many instances: the devices are locked, their state loaded at once).
    var locksDevices: Bool { get }
    /// Locks the devices of a transaction's lines and loads their state and their ids' answers,
    /// before any line is applied. Called once per transaction, right after `begin()`.
    func lock(devices: [String], answersOf ids: [String]) throws(StoreError)
    /// The WAL's checkpoints and bytes written so far (running totals), nil without a WAL.
    var walActivity: SQLiteStateStore.WALActivity? { get }
    /// The replies of the last commit are on their way: work a commit left for between two
    /// transactions runs now, before the next `begin()` (the state file's last checkpoint frames).
    func repliesSent()
}

extension StateLog {
    public var walActivity: SQLiteStateStore.WALActivity? { nil }
    /// A log that no other process writes locks nothing.
    public var locksDevices: Bool { false }
    /// Nothing left for between transactions.
    public func repliesSent() {}
    public func lock(devices: [String], answersOf ids: [String]) throws(StoreError) {}
}

extension SQLiteStateStore: StateLog {
    public var fileBytes: Int? { path == ":memory:" ? nil : HeldState.fileBytes(at: path) }
    /// The WAL's last frames copied back, if a commit left them (`checkpointStep()`).
    public func repliesSent() { checkpointStep() }
}
