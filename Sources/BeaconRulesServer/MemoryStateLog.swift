public import BeaconRules

/// The state of a server without `--state`: it lives as long as the process, in hash tables, so
/// that no event pays for SQL. Nothing here can fail, so a transaction is only a bracket.
public final class MemoryStateLog: StateLog {
    /// Where each answered event's records sit: their own bytes in `arena`, and the runs they
    /// refer to (`references[start ..< start + count]`).
    private struct Answer {
        var own: ByteArena.Slot
        var referencesStart: UInt32
        var referencesCount: UInt32
    }

    /// A run of an answer that stays where the engine wrote it (a record tail in the engine's
    /// cache), placed at `at` in the answer's own bytes. 16 bytes where the run is about 700.
    private struct Reference {
        var start: UnsafePointer<UInt8>
        var at: UInt32
        var count: UInt32
    }

    private var answers: [String: Answer] = [:]
    private var arena = ByteArena()
    private var references: [Reference] = []
    /// What the references point into, kept alive as long as the log (an engine replaced by a
    /// reload frees its own copy; the answers given from it must not change).
    private var storages: [AnyObject] = []
    private var outboxEntries: [(seq: Int64, records: [UInt8])] = []

    public init() {
        // Room for a million answers before the first rehash (a rehash moves every key, and the
        // log only grows); untouched capacity costs address space, not memory.
        answers.reserveCapacity(1 << 20)
    }

    public func begin() {}
    public func commit() {}
    public func rollback() {}

    public var keepsReferences: Bool { true }
    public var heldAnswers: Int { answers.count }
    public var fileBytes: Int? { nil }

    public func answer(event id: String) -> [UInt8]? {
        guard let answer = answers[id] else { return nil }
        let own = arena.bytes(answer.own)
        if answer.referencesCount == 0 { return own }
        var joined: [UInt8] = []
        var position = 0
        for reference in references[Int(answer.referencesStart)..<Int(answer.referencesStart + answer.referencesCount)] {
            joined.append(contentsOf: own[position..<Int(reference.at)])
            joined.append(contentsOf: UnsafeBufferPointer(start: reference.start, count: Int(reference.count)))
            position = Int(reference.at)
        }
        joined.append(contentsOf: own[position...])
        return joined
    }

    public func remember(event id: String, records: [UInt8]) {
        answers[id] = Answer(own: arena.append(records), referencesStart: 0, referencesCount: 0)
    }

    public func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        if !records.references.isEmpty && storages.last !== storage { storages.append(storage) }
        let start = UInt32(references.count)
        for reference in records.references {
            references.append(Reference(start: reference.start, at: UInt32(reference.at), count: UInt32(reference.count)))
        }
        answers[id] = Answer(own: arena.append(records.bytes), referencesStart: start, referencesCount: UInt32(records.references.count))
    }

    /// The ledger lives in the engine; there is nothing saved to load, and nothing to save.
    public var savesLedger: Bool { false }
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

    public func close() {
        arena.stop()
    }

    deinit {
        arena.stop()
    }
}
