extension LinePipeline {
    /// Takes the delivery ledger saved in the log (responses to earlier runs' records), and
    /// records its changes from now on for `settle` to save.
    /// A ledger that does not load leaves the engine's (empty) one in place, its changes recorded all the same.
    public func loadLedger() throws {
        defer {
            engine.engine.ledger.recordsChanges = log.savesLedger
            engine.engine.ledger.responseWindow = retention.responseWindow
        }
        engine.engine.ledger = try log.loadLedger()
    }

    /// Takes the presence state saved in the log: open stays, pending exits and dwells carry on.
    public func loadPresence() throws {
        if let saved = try log.loadPresence() { try engine.restore(saved) }
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
        fired.removeAll()
        engine.advance(to: now, into: &fired)
        log.appendOutbox(fired.bytes)
        log.savePresence(engine.snapshot())
        presenceChanged = false
    }

    /// The caller's transaction was rolled back: the ledger's changes since the last `settle`
    /// are taken back (the saved ledger read again).
    public func rolledBack() {
        guard log.savesLedger, var saved = try? log.loadLedger() else { return }
        saved.recordsChanges = true
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
