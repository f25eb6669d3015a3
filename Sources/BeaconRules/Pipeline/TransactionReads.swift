/// What a transaction reads from the database, named before its lines are applied: the store
/// reads it all in a few round trips (`PostgresStateStore.prepare(_:)`), and the engine then
/// reads memory only. The same shape says what a transaction read that was not prepared
/// (`PostgresStateStore.takeMisses()`): the transaction is rolled back and run again with it.
package struct TransactionReads: Sendable, Equatable {
    /// Devices to lock (transaction-scoped advisory locks, in the order of their hashes) and
    /// whose firings to load.
    package var devices: [String] = []
    /// Event ids whose saved answers to load.
    package var answers: [String] = []
    /// Record ids whose saved ledger lines to read (`AnswerLog.ledgerLines(naming:)`): the
    /// records a transaction's responses name.
    package var ledgerLinesOf: [String] = []
    /// Outbox requests: the sequence numbers they read after.
    package var outboxAfter: [Int64] = []
    /// Whether presence input is taken: the presence lock is asked for (`claimPresence`) and,
    /// when this instance takes it, the saved presence state read.
    package var presence = false

    /// Nothing to read.
    package init() {}

    /// Reads of devices `devices` and the answers of `answers`.
    package init(devices: [String], answers: [String] = []) {
        self.devices = devices
        self.answers = answers
    }

    /// Whether there is nothing to read.
    package var isEmpty: Bool {
        devices.isEmpty && answers.isEmpty && ledgerLinesOf.isEmpty && outboxAfter.isEmpty && !presence
    }

    /// What `input` reads: its device and id, the record a response names; a sighting is
    /// presence input.
    package mutating func add(_ input: InputLine) {
        devices.append(input.device)
        answers.append(input.id)
        switch input {
        case .response(let response): ledgerLinesOf.append(response.notification)
        case .sighting: presence = true
        case .beacon: break
        }
    }

    /// These reads and `other`'s.
    package mutating func formUnion(_ other: TransactionReads) {
        devices += other.devices
        answers += other.answers
        ledgerLinesOf += other.ledgerLinesOf
        outboxAfter += other.outboxAfter
        presence = presence || other.presence
    }
}
