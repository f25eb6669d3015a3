/// The state a one-engine replay commits a block of lines at a time (`replay --state FILE`):
/// the engine's suppression store and the pipeline's answer log, one transaction a block. The
/// SQLite state file is one (the command declares it).
///
/// Not `Sendable`: the replay's one thread makes every call.
package protocol BlockTransactions: AnyObject {
    func begin() throws
    func commit() throws
    func rollback()
}
