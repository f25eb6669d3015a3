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
    /// Whether `remember(event:written:holding:)` keeps a writer's referenced runs as references
    /// (by keeping their storage alive) rather than as copies.
    var keepsReferences: Bool { get }
    /// `remember` for records as the engine wrote them; `storage` is what their references point
    /// into (`RulesEngine.referencedStorage`).
    func remember(event id: String, written records: JSONWriter, holding storage: AnyObject)
    func loadLedger() throws(StoreError) -> DeliveryLedger
    func saveLedger(_ lines: [DeliveryLedger.Line]) throws(StoreError)
    func loadPresence() throws(StoreError) -> [UInt8]?
    func savePresence(_ snapshot: [UInt8])
    func appendOutbox(_ records: [UInt8])
    func outbox(after: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, records: [UInt8])]
    func close()
}

extension StateLog {
    public var keepsReferences: Bool { false }

    /// A log that keeps bytes (a file) keeps the records joined.
    public func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        remember(event: id, records: records.joinedBytes)
    }
}

extension SQLiteStateStore: StateLog {}
