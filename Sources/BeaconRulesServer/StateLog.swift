public import BeaconRules
public import BeaconRulesStore

/// What the `EngineOwner` keeps besides the suppression state: the log of answered events, the
/// delivery ledger, the presence snapshot and the outbox, with the transactions that make them
/// durable. `SQLiteStateStore` is one (`--state`); `MemoryStateLog` is the one without a file.
///
/// Not `Sendable`: the owner thread makes every call.
public protocol StateLog: AnyObject {
    func begin() throws(StoreError)
    func commit() throws(StoreError)
    func rollback()
    /// The records an event id was answered with, nil when the id is new.
    func answer(event id: String) -> [UInt8]?
    func remember(event id: String, records: [UInt8])
    func loadLedger() throws(StoreError) -> DeliveryLedger
    func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError)
    func loadPresence() throws(StoreError) -> [UInt8]?
    func savePresence(_ snapshot: [UInt8])
    func appendOutbox(_ records: [UInt8])
    func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])]
    func close()
}

extension SQLiteStateStore: StateLog {}

/// The state of a server without `--state`: it lives as long as the process, in hash tables, so
/// that no event pays for SQL. Nothing here can fail, so a transaction is only a bracket.
public final class MemoryStateLog: StateLog {
    private var answers: [String: [UInt8]] = [:]
    private var outboxEntries: [(seq: Int64, records: [UInt8])] = []

    public init() {}

    public func begin() {}
    public func commit() {}
    public func rollback() {}
    public func answer(event id: String) -> [UInt8]? { answers[id] }
    public func remember(event id: String, records: [UInt8]) { answers[id] = records }
    /// The ledger lives in the engine; there is nothing saved to load.
    public func loadLedger() -> DeliveryLedger { DeliveryLedger() }
    public func saveLedger(_ lines: [DeliveryLedger.Line]) {}
    public func loadPresence() -> [UInt8]? { nil }
    public func savePresence(_ snapshot: [UInt8]) {}

    public func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        outboxEntries.append(((outboxEntries.last?.seq ?? 0) + 1, records))
    }

    public func outbox(after: Int64, limit: Int) -> [(seq: Int64, records: [UInt8])] {
        // Sequence numbers are 1, 2, 3...: entry n sits at index n - 1.
        let start = Int(min(max(after, 0), Int64(outboxEntries.count)))
        return Array(outboxEntries[start..<min(outboxEntries.count, start + limit)])
    }

    public func close() {}
}
