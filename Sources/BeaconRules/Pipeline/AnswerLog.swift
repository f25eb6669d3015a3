/// What a `LinePipeline` keeps besides the suppression state: the answered events (an id seen
/// again is answered as before and changes nothing), the delivery ledger's saved lines, the
/// presence snapshot and the outbox of records that fired on the clock. The SQLite store is one
/// (`--state`), the server's in-memory log another, `NoAnswerLog` the one that keeps nothing.
///
/// Only the data: the transactions around it are the driver's (the engine does no I/O, and a
/// log's calls land inside whatever transaction the driver has open). Not `Sendable`: the one
/// owner of the pipeline makes every call.
public protocol AnswerLog {
    /// False: `answer` is always nil and nothing is remembered (the pipeline then neither looks
    /// up nor copies an event's records).
    var remembers: Bool { get }
    /// The records an event id was answered with, nil when the id is new.
    func answer(event id: String) -> [UInt8]?
    /// Remembers the records (JSON lines) an event id was answered with, for as long as the answer
    /// retention.
    func remember(event id: String, records: [UInt8])
    /// Whether `remember(event:written:holding:)` keeps a writer's referenced runs as references
    /// (by keeping their storage alive) rather than as copies.
    var keepsReferences: Bool { get }
    /// `remember` for records as the engine wrote them (the whole writer); `storage` is what their
    /// references point into (`RulesEngine.referencedStorage`).
    func remember(event id: String, written records: JSONWriter, holding storage: AnyObject)

    /// Whether the delivery ledger is saved here (and so its changes are recorded for `saveLedger`).
    var savesLedger: Bool { get }
    /// The delivery ledger as saved, replayed from its lines (empty when none was saved).
    func loadLedger() throws -> DeliveryLedger
    /// Saves the ledger lines changed since the last save (`DeliveryLedger.takeChanges`); a removal
    /// line deletes what was saved under its key.
    func saveLedger(_ lines: [DeliveryLedger.Line]) throws
    /// Whether other processes save the same ledger (a database that many servers share): the
    /// lines of the records a transaction's responses name are then read again inside it
    /// (`ledgerLines(naming:)`), and forgotten deliveries are saved as tombstones.
    var isShared: Bool { get }
    /// The saved lines (JSON, in key order) of the records `recordIDs` name: their deliveries
    /// with every line naming those, and their tombstones (`DeliveryLedger.lineKeys(naming:)`).
    func ledgerLines(naming recordIDs: [String]) throws -> [[UInt8]]
    /// The presence layer's saved snapshot, nil when none was saved.
    func loadPresence() throws -> [UInt8]?
    /// Whether `savePresence` keeps the snapshot (a file, a database). A log that does not (in
    /// memory, or nothing) says so, and the pipeline makes none: a snapshot writes every pair and
    /// every buffered input, at every `settle` that follows presence input (0.2-0.6 s a batch for
    /// a server holding 100,000 pairs, thrown away).
    var savesPresence: Bool { get }
    /// Replaces the saved presence snapshot.
    func savePresence(_ snapshot: [UInt8])
    /// Whether this process may take presence input now. The presence state is one whole (an
    /// exclusive zone's subject may be a beacon that many devices hear), so a log that other
    /// processes share lets one of them at a time take it; others are refused.
    func claimPresence() throws -> PresenceClaim
    /// Records that fired on the clock, with no line to answer: kept for an outbox request.
    func appendOutbox(_ records: [UInt8])
    /// Outbox entries after sequence number `after`, oldest first, at most `limit`.
    func outbox(after: Int64, limit: Int) throws -> [(seq: Int64, records: [UInt8])]

    /// Answers (and outbox entries) kept from now on were given at this wall-clock time: the
    /// answer retention counts from it (SPEC section 5).
    func setClock(_ now: Timestamp)
    /// Forgets answers and outbox entries given before `time`, looking at no more than `limit` of
    /// each (a short step); returns how many it forgot. Inside the caller's transaction.
    func forgetAnswers(before time: Timestamp, limit: Int) throws -> Int
    /// A shared log's step of forgetting saved deliveries whose response window (`window`) ended
    /// by event time `cutoff` (ms), looking at no more than `limit` saved lines: deliveries that
    /// no process holds in memory any more (the one that delivered them stopped) go too, each
    /// leaving a tombstone as the ledger does, and tombstones written two windows ago go. Returns how
    /// many deliveries it forgot. Inside the caller's transaction.
    func forgetSavedDeliveries(windowEndedBy cutoff: Int64, window: Int64, limit: Int) throws -> Int
    /// Deletes saved ledger lines and gives freed space back, a short step at a time (a file:
    /// an incremental vacuum of a few pages). Inside the caller's transaction.
    func reclaimSpace() throws
}

extension AnswerLog {
    /// A log remembers answers unless it says otherwise.
    public var remembers: Bool { true }
    /// By default a log copies the referenced runs of the records it keeps.
    public var keepsReferences: Bool { false }
    /// By default a log saves the delivery ledger.
    public var savesLedger: Bool { true }
    /// By default a log saves the presence snapshot.
    public var savesPresence: Bool { true }
    /// By default a log is this process's own: no other process saves its ledger.
    public var isShared: Bool { false }
    /// A log of this process's own: presence input is always this process's to take.
    public func claimPresence() throws -> PresenceClaim { .held }
    /// A log of this process's own has nothing another process saved: the ledger in memory is whole.
    public func ledgerLines(naming recordIDs: [String]) throws -> [[UInt8]] { [] }
    /// A log that keeps answers for ever says so by not forgetting them.
    public func setClock(_ now: Timestamp) {}
    /// By default nothing is forgotten (a log that keeps answers for ever).
    public func forgetAnswers(before time: Timestamp, limit: Int) throws -> Int { 0 }
    /// By default there is no space to give back.
    public func reclaimSpace() throws {}
    /// A log of this process's own forgets deliveries with the ledger in memory: nothing to sweep.
    public func forgetSavedDeliveries(windowEndedBy cutoff: Int64, window: Int64, limit: Int) throws -> Int { 0 }

    /// A log that keeps bytes (a file) keeps the records joined.
    public func remember(event id: String, written records: JSONWriter, holding storage: AnyObject) {
        remember(event: id, records: records.joinedBytes)
    }
}

/// The log of a run that keeps nothing (`replay` without `--state`): every line is new, and
/// memory does not grow with the answers.
public struct NoAnswerLog: AnswerLog {
    /// The log that keeps nothing.
    public init() {}
    /// Nothing is remembered, so no line is answered from the log.
    public var remembers: Bool { false }
    /// The ledger is not saved, so its changes are not collected either.
    public var savesLedger: Bool { false }
    /// Always nil: every id is new.
    public func answer(event id: String) -> [UInt8]? { nil }
    /// Keeps nothing.
    public func remember(event id: String, records: [UInt8]) {}
    /// An empty ledger: a run without state starts with no deliveries.
    public func loadLedger() -> DeliveryLedger { DeliveryLedger() }
    /// Keeps nothing.
    public func saveLedger(_ lines: [DeliveryLedger.Line]) {}
    /// No snapshot: presence starts empty.
    public func loadPresence() -> [UInt8]? { nil }
    /// The presence snapshot is not kept, so none is made.
    public var savesPresence: Bool { false }
    /// Keeps nothing.
    public func savePresence(_ snapshot: [UInt8]) {}
    /// Keeps nothing: records that fired on the clock went to the output already.
    public func appendOutbox(_ records: [UInt8]) {}
    /// Always empty.
    public func outbox(after: Int64, limit: Int) -> [(seq: Int64, records: [UInt8])] { [] }
}

/// What `AnswerLog.claimPresence` says.
public enum PresenceClaim: Sendable, Equatable {
    /// This process takes presence input, as it did before.
    case held
    /// This process has just become the one that takes it: the saved state is read again (the
    /// process that took it before may have saved since).
    case gained
    /// Another process takes it.
    case refused
}
