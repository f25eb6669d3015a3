package import BeaconRules
import NIOCore

/// The state of a server without `--state`: it lives as long as the process, in hash tables, so
/// that no event pays for SQL. Nothing here can fail, so a transaction is only a bracket.
///
/// Answers are forgotten oldest first once the answer retention has passed (`forgetAnswers`):
/// `order` holds them in the order they were given, so each step removes from its front, and
/// the arena frees each chunk once no answer in it is left. Nothing here grows all at once:
/// `order` and `references` grow a block at a time (`SegmentedQueue`: a buffer that doubles
/// would copy all the answers at once), and the ids are found through `answers`, a table that
/// doubles a few slots per answer given or forgotten (`GrowingSlots`: a dictionary that doubles
/// puts every id again at once).
package final class MemoryStateLog: StateLog {
    /// An answer in the order given: its id, when it was given, and where its records are: their
    /// own bytes in `arena`, and the runs they refer to (`references[referencesStart -
    /// referencesBase ..< ... + referencesCount]`).
    private struct Given {
        var id: String
        var at: Int64
        var chunk: Int
        var own: ByteArena.Slot
        var referencesStart: Int
        var referencesCount: UInt32
    }

    /// A run of an answer that stays where the engine wrote it (a record tail in the engine's
    /// cache), placed at `at` in the answer's own bytes. 16 bytes where the run is about 700.
    private struct Reference {
        var start: UnsafePointer<UInt8>
        var at: UInt32
        var count: UInt32
    }

    /// Each answered id's latest answer, by the id's (seeded) hash: a slot's number is the
    /// answer's in the order given (`order[number - orderBase]`, where the id is compared).
    private var answers = GrowingSlots<NumberedKeySlot>()
    private var arena = ByteArena()
    private var references = SegmentedQueue<Reference>()
    /// The number of the first of `references` (numbers keep counting as the front goes).
    private var referencesBase = 0
    private var order = SegmentedQueue<Given>()
    /// The number of the first of `order`.
    private var orderBase = 0
    /// The wall clock answers are stamped with (`setClock`).
    private var clock: Int64 = 0
    /// What the references point into, kept alive as long as the log (an engine replaced by a
    /// reload frees its own copy; the answers given from it must not change).
    private var storages: [AnyObject] = []
    private var outboxEntries = CircularBuffer<(seq: Int64, at: Int64, records: [UInt8])>()
    private var nextOutboxSeq: Int64 = 1

    package init() {}

    package func begin() {}
    package func commit() {}
    package func rollback() {}

    package var keepsReferences: Bool { true }
    package var heldAnswers: Int { answers.count }

    private static func hash(_ id: String) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(id)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The latest answer given to `id`, with its place in `answers`.
    private func given(_ id: String, hash: UInt64) -> (place: GrowingSlots<NumberedKeySlot>.Place, given: Given)? {
        let base = orderBase
        guard let place = answers.place(hash: hash, where: { $0.hash == hash && order[$0.number - base].id == id }) else { return nil }
        return (place, order[answers[place].number - base])
    }
    package var fileBytes: Int? { nil }

    package func answer(event id: String) -> [UInt8]? {
        guard let (_, answer) = given(id, hash: Self.hash(id)) else { return nil }
        let own = arena.bytes(answer.own)
        if answer.referencesCount == 0 { return own }
        var joined: [UInt8] = []
        var position = 0
        let first = answer.referencesStart - referencesBase
        for k in first..<first + Int(answer.referencesCount) {
            let reference = references[k]
            joined.append(contentsOf: own[position..<Int(reference.at)])
            joined.append(contentsOf: UnsafeBufferPointer(start: reference.start, count: Int(reference.count)))
            position = Int(reference.at)
        }
        joined.append(contentsOf: own[position...])
        return joined
    }

    package func remember(event id: String, records: [UInt8]) {
        let own = arena.append(records)
        given(id, own: own, referencesStart: referencesBase + references.count, referencesCount: 0)
    }

    package func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        if !records.references.isEmpty && storages.last !== storage { storages.append(storage) }
        let start = referencesBase + references.count
        for reference in records.references {
            references.append(Reference(start: reference.start, at: UInt32(reference.at), count: UInt32(reference.count)))
        }
        let own = arena.append(records.bytes)
        given(id, own: own, referencesStart: start, referencesCount: UInt32(records.references.count))
    }

    /// Appends an answer to `order` and makes it the id's (an id answered again: the latest).
    private func given(_ id: String, own: ByteArena.Slot, referencesStart: Int, referencesCount: UInt32) {
        let hash = Self.hash(id)
        let sequence = orderBase + order.count
        if let (place, _) = given(id, hash: hash) {
            answers[place].number = sequence
        } else {
            answers.insert(NumberedKeySlot(hash: hash, number: sequence))
        }
        order.append(Given(id: id, at: clock, chunk: arena.currentChunk, own: own, referencesStart: referencesStart, referencesCount: referencesCount))
    }

    package func setClock(_ now: Timestamp) { clock = now.milliseconds }

    /// Answers given before `time`, oldest first, and the arena chunks left with none of them;
    /// then outbox entries kept before `time`.
    package func forgetAnswers(before time: Timestamp, limit: Int) -> Int {
        var forgotten = 0
        while forgotten < limit, let oldest = order.first, oldest.at < time.milliseconds {
            // An id given again after this answer has a newer one: that one stays.
            let sequence = orderBase
            if let place = answers.place(hash: Self.hash(oldest.id), where: { $0.number == sequence }) {
                answers.remove(at: place)
            }
            order.removeFirst()
            orderBase += 1
            references.removeFirst(Int(oldest.referencesCount))
            referencesBase += Int(oldest.referencesCount)
            forgotten += 1
        }
        if forgotten > 0 { arena.release(before: order.first?.chunk ?? arena.currentChunk) }
        var entries = 0
        while entries < limit, let oldest = outboxEntries.first, oldest.at < time.milliseconds {
            outboxEntries.removeFirst()
            entries += 1
        }
        return forgotten + entries
    }

    /// Answers remembered now (for tests and the soak).
    package var answerCount: Int { answers.count }

    /// The ledger lives in the engine; there is nothing saved to load, and nothing to save.
    package var savesLedger: Bool { false }
    package func loadLedger() -> DeliveryLedger { DeliveryLedger() }
    package func saveLedger(_ lines: [DeliveryLedger.Line]) {}
    package func loadPresence() -> [UInt8]? { nil }
    /// The presence layer lives in the engine: no snapshot is kept, so none is made.
    package var savesPresence: Bool { false }
    package func savePresence(_ snapshot: [UInt8]) {}

    package func appendOutbox(_ records: [UInt8]) {
        if records.isEmpty { return }
        outboxEntries.append((nextOutboxSeq, clock, records))
        nextOutboxSeq += 1
    }

    package func outbox(after: Int64, limit: Int) -> [(seq: Int64, records: [UInt8])] {
        // Sequence numbers count up by one: entry n sits n - (the first's) from the front.
        guard let first = outboxEntries.first?.seq else { return [] }
        let start = Int(min(max(after + 1 - first, 0), Int64(outboxEntries.count)))
        let end = min(outboxEntries.count, start + limit)
        return (start..<end).map { k in
            let entry = outboxEntries[outboxEntries.index(outboxEntries.startIndex, offsetBy: k)]
            return (entry.seq, entry.records)
        }
    }

    package func close() {
        arena.stop()
    }

    deinit {
        arena.stop()
    }
}
