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
}

extension SQLiteStateStore: StateLog {}
