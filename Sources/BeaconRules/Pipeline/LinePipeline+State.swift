extension LinePipeline {
    /// Takes the delivery ledger saved in the log (responses to earlier runs' records), and
    /// records its changes from now on for `settle` to save.
    /// A ledger that does not load leaves the engine's (empty) one in place, its changes recorded all the same.
    public func loadLedger() throws {
        defer {
            engine.engine.ledger.recordsChanges = log.savesLedger
            engine.engine.ledger.savesTombstones = log.isShared
            engine.engine.ledger.responseWindow = retention.responseWindow
        }
        engine.engine.ledger = try log.loadLedger()
    }

    /// A ledger that other processes share (`AnswerLog.isShared`): the saved lines of the
    /// records that `responses` name are read and merged in, so that a response is answered as
    /// if this process had delivered the record, whichever did. Inside the caller's transaction,
    /// after the responses' devices are locked and before any line is applied.
    public func refreshLedger(naming responses: [String]) throws {
        guard log.isShared, !responses.isEmpty else { return }
        var lines: [JSONValue] = []
        for bytes in try log.ledgerLines(naming: responses) { lines.append(try JSONParser.parse(bytes)) }
        try engine.engine.ledger.merge(saved: lines)
    }

    /// Takes the presence state saved in the log: open stays, pending exits and dwells carry on.
    /// A shared log's is read when this process is let take presence input (`claimPresence`).
    public func loadPresence() throws {
        if log.isShared { return }
        if let saved = try log.loadPresence() { try engine.restore(saved) }
    }

    /// The presence state as saved in the log (none saved: none).
    func restorePresence() throws {
        if let saved = try log.loadPresence() { try engine.restore(saved) } else { engine.resetPresence() }
    }

    /// Whether presence input may go to the layer now (`AnswerLog.claimPresence`); the saved
    /// state read first when this process has just been let take it. False: the line was
    /// answered with an error saying why.
    @usableFromInline func mayTakePresence(_ line: QueuedLine) -> Bool {
        do {
            switch try log.claimPresence() {
            case .held:
                return true
            case .gained:
                try restorePresence()
                return true
            case .refused:
                output.rejected(line: line.line, message: Self.presenceTakenElsewhere)
                return false
            }
        } catch {
            output.rejected(line: line.line, message: "cannot take presence input: \(error)")
            return false
        }
    }

    static var presenceTakenElsewhere: String {
        "presence input (sightings, and beacon events under flicker control) is taken by another instance on this shared state: the presence state is one whole, so one instance at a time takes it; send presence input to that one instance (docs/serve.md, Scaling out)"
    }

    /// The one place per transaction for periodic work, inside the caller's open transaction,
    /// just before it commits: a step of forgetting what retention lets go (`forgetExpired`), the
    /// delivery ledger's changes saved; with `now` (a server's wall clock), presence moved on to
    /// it, what fires then appended to the outbox and the presence state saved. Work to do once
    /// per batch goes here.
    public func settle(now: Timestamp? = nil) throws {
        try forgetExpired()
        if log.savesLedger { try log.saveLedger(engine.engine.ledger.takeChanges()) }
        guard let now, presenceChanged || !engine.layer.isIdle else { return }
        if log.isShared {
            switch try log.claimPresence() {
            case .held: break
            case .gained: try restorePresence()
            case .refused:
                // Another process took presence over (this one lost its connection meanwhile):
                // its state is the one that counts.
                engine.resetPresence()
                presenceChanged = false
                return
            }
        }
        fired.removeAll()
        // A pair idle for as long as an answer is kept is forgotten (SPEC section 7).
        engine.layer.idleHorizon = retention.answers
        engine.advance(to: now, into: &fired)
        log.appendOutbox(fired.bytes)
        if log.savesPresence { log.savePresence(engine.snapshot()) }
        presenceChanged = false
    }

    /// The caller's transaction was rolled back: the ledger's changes since the last `settle`
    /// are taken back (the saved ledger read again).
    public func rolledBack() {
        guard log.savesLedger, var saved = try? log.loadLedger() else { return }
        saved.recordsChanges = true
        saved.savesTombstones = log.isShared
        saved.responseWindow = retention.responseWindow
        engine.engine.ledger = saved
    }

    /// End of input: what the presence layer holds is resolved as of the last event time plus
    /// the exit timeout, its records to `output.records`.
    public func finish() {
        engine.finish(into: &output.records)
    }

    /// A new campaign set, between the lines applied before and after: a new engine keeping the
    /// suppression state, the delivery ledger and the action handlers, and presence as it is.
    public func reload(campaigns: CampaignSet, locales: LocaleTable) {
        var ledger = engine.engine.ledger
        ledger.campaignsChanged()
        let registry = engine.engine.actionRegistry
        var rules = RulesEngine(campaigns: campaigns, locales: locales, store: engine.engine.store)
        rules.ledger = ledger
        rules.actionRegistry = registry
        engine.replaceEngine(rules)
        firingExpiry = FiringExpiry(campaigns: campaigns, generation: firingExpiry.generation + 1)
    }
}
