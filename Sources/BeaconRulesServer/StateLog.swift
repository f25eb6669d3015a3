public import BeaconRules
public import BeaconRulesPostgres
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
    /// Whether the log wants `lock(devices:answersOf:)` called at the start of each transaction
    /// (a database shared by many instances: the devices are locked, their state loaded at once).
    var locksDevices: Bool { get }
    /// Locks the devices of a transaction's lines and loads their state and their ids' answers,
    /// before any line is applied. Called once per transaction, right after `begin()`.
    func lock(devices: [String], answersOf ids: [String]) throws(StoreError)
}

extension StateLog {
    /// A log that no other process writes locks nothing.
    public var locksDevices: Bool { false }
    public func lock(devices: [String], answersOf ids: [String]) throws(StoreError) {}
}

extension SQLiteStateStore: StateLog {}

extension PostgresStateStore: StateLog {
    public var locksDevices: Bool { true }
}
