/// Matches beacon events against a campaign set and emits scheduled, localized records.
///
/// No I/O: the caller feeds events and takes records. State lives in `store`, updated when a record
/// is emitted, at event time (SPEC section 2).
///
/// An event becomes records in three steps: its candidate campaigns (those whose beacon pattern
/// takes the event's beacon, `CandidateIndex`) are decided against the store's last firings
/// (`match`, in RulesEngine+Matching.swift); those that fire are remembered in the store and
/// sorted by fire date; each becomes a record, its head joined per event and its tail rendered
/// once per campaign, trigger and language (`RecordJoiner`, `TailCache`, RulesEngine+Tails.swift).
///
/// The rules exist twice, on purpose: the compiled fast path here (`CandidateRow.fireDate`, fed
/// by `CandidateIndex`) and the reference reading of the campaign, `Campaign.verdict`
/// (Verdict.swift), which `explain` answers with. The test
/// `WorkloadEquivalenceTests.fastPathGivesExactlyTheReferenceRecords` keeps them equal: it replays
/// the benchmark's workload both ways (the reference path checks every campaign with
/// `Campaign.verdict`) and compares the records byte for byte. A change to a rule changes both.
public struct RulesEngine<Store: SuppressionStore> {
    // MARK: - The rules

    /// The campaigns loaded.
    public let campaigns: CampaignSet
    /// How each record's language is chosen, from the locales loaded.
    public let chooser: LanguageChooser
    /// The campaigns' rules as matching reads them, through pointers.
    let table: RuleTable<Store.CampaignKey>

    // MARK: - The state

    /// The suppression state: the last firing per (device, campaign).
    public var store: Store
    /// Every delivered notification and what the device reported about it (`respond(to:)`).
    public var ledger = DeliveryLedger()
    /// The handlers clicks run (`respond(to:)`).
    public var actionRegistry = ActionRegistry()
    /// What the handlers returned in the transaction being attempted, by record and button; nil
    /// when no transaction may run twice. `LinePipeline.checkpoint()` starts it empty and
    /// `restore(_:)` keeps it: an attempt run again (it read what was not prepared) reuses what
    /// the first attempt's handlers returned, so a click's handler runs once per transaction.
    var handlerOutputs: [UInt64: [ActionOutput]]?

    // MARK: - Per-event scratch

    /// The current event's beacon number, dwell and firings (internal: the delivery ledger reads them).
    var scratch = EventScratch()

    // MARK: - Caches

    /// The hot path's caches, each with its invariant in its own file.
    var caches: EngineCaches<Store.DeviceKey>

    /// Beacons numbered so far (tests: which candidate path events took).
    var numberedBeacons: Int { caches.candidateIndex.count }
    /// What the references of a writer that collects them (`JSONWriter.appendStable`) point
    /// into: a holder keeps those bytes valid past this engine (a server's answer log, across a
    /// reload) by keeping this object.
    public var referencedStorage: AnyObject { caches.tails.arena }

    /// An engine of these campaigns and locales over `store` (which may hold state already).
    /// `sharedTails`: where engines of the same campaigns and locales that run side by side
    /// share the tails they render, so that each tail is rendered once among them.
    public init(campaigns: CampaignSet, locales: LocaleTable, store: Store, sharedTails: SharedTails? = nil) {
        self.campaigns = campaigns
        self.chooser = LanguageChooser(locales: locales)
        self.store = store
        // The store's key for each distinct campaign id (`CompiledRule.idSlot`), kept in the rows.
        var keys: [Store.CampaignKey] = []
        keys.reserveCapacity(campaigns.campaignIDs.count)
        for id in campaigns.campaignIDs { keys.append(self.store.key(campaign: id)) }
        table = RuleTable(campaigns, keys: keys)
        caches = EngineCaches(campaigns, sharedTails: sharedTails)
    }

    /// Every record the event produces, ordered by `fireDate`, then campaign.
    public mutating func process(_ event: BeaconEvent) -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        process(event) { records.append($0) }
        return records
    }

    /// Streams the event's records to `emit` in SPEC order.
    public mutating func process(_ event: BeaconEvent, emit: (NotificationRecord) -> Void) {
        InPlaceEvent.with(event) { event in
            match(event)
            if ledger.isEnabled && !scratch.pending.isEmpty { noteDeliveries(event) }
        }
        for i in 0..<scratch.pending.count {
            let firing = scratch.pending[i]
            let campaign = campaigns.campaigns[Int(firing.index)]
            emit(record(for: campaign, event: event, fireDate: Timestamp(milliseconds: firing.fireDate)))
        }
    }

    /// The hot path: the event's records appended to `writer` as JSON lines. Each head is joined
    /// from runs rendered once (`RecordHead`: the campaign's at load, the event's once per event);
    /// each tail is rendered once per (campaign, trigger, device language) and cached.
    @_specialize(where Store == InMemorySuppressionStore)
    public mutating func write(_ event: BeaconEvent, into writer: inout JSONWriter) {
        InPlaceEvent.with(event) { write($0, into: &writer) }
    }

    /// `write` for an event read in place (`InPlaceEventBatch`): no `String` per field.
    package mutating func write(_ event: InPlaceEvent, into writer: inout JSONWriter) {
        write(event, knownDevice: nil, knownBeacon: nil, into: &writer)
    }

    /// `write` for the event at `i` of `batch`, starting from what `prefetch(batch)` found for it
    /// when that was this batch's last prefetch.
    @_specialize(where Store == InMemorySuppressionStore)
    @usableFromInline package mutating func write(_ batch: borrowing InPlaceEventBatch, at i: Int, into writer: inout JSONWriter) {
        writePrefetched(batch, at: i, into: &writer)
    }

    /// `write(batch, at:)`. Its own function, never inlined: the public one is called unspecialized
    /// from other modules and dispatches to its specialization first thing, and the locals here
    /// (an optional of the store's key) would cost two generic metadata lookups per event before it.
    @inline(never)
    private mutating func writePrefetched(_ batch: borrowing InPlaceEventBatch, at i: Int, into writer: inout JSONWriter) {
        if let found = caches.prefetched.found(batch: batch.stamp, at: i) {
            write(batch[i], knownDevice: found.device, knownBeacon: found.beacon, into: &writer)
        } else {
            write(batch[i], knownDevice: nil, knownBeacon: nil, into: &writer)
        }
    }

    /// Decides the event's firings (`match`), gives each its tail (cached, else rendered), tells
    /// the ledger what was delivered, and joins the records into `writer`.
    private mutating func write(_ event: InPlaceEvent, knownDevice: Store.DeviceKey?, knownBeacon: (number: Int32, run: UInt64)?, into writer: inout JSONWriter) {
        match(event, knownDevice: knownDevice, knownBeacon: knownBeacon)
        if scratch.pending.isEmpty { return }
        caches.recordJoiner.prepare(event)
        let slot = caches.localeSlots.slot(event.locale)
        let ledgerLocale = ledger.isEnabled ? ledgerLocaleSlot(engineSlot: slot, event.locale) : 0
        let uncached = attachTails(event, slot: slot, ledgerLocale: ledgerLocale)
        if ledger.isEnabled { noteDeliveries(event, locale: ledgerLocale, head: caches.recordJoiner.unescapedIDClosing) }
        caches.recordJoiner.join(scratch.pending, eventTime: event.time.milliseconds, uncached: uncached, tails: caches.tails.arena, into: &writer)
    }

    /// The presence layer's dwell event: `event` (kind enter, at the dwell time) matched against the
    /// campaigns whose `dwell` is `dwellMilliseconds`, records appended to `writer`.
    public mutating func writeDwell(_ event: BeaconEvent, dwellMilliseconds: Int64, into writer: inout JSONWriter) {
        scratch.dwell = dwellMilliseconds
        defer { scratch.dwell = 0 }
        write(event, into: &writer)
    }

    /// `process` for a dwell event (see `writeDwell`).
    public mutating func processDwell(_ event: BeaconEvent, dwellMilliseconds: Int64) -> [NotificationRecord] {
        scratch.dwell = dwellMilliseconds
        defer { scratch.dwell = 0 }
        return process(event)
    }

    /// The campaigns (index in `campaigns.campaigns`) and fire dates (ms) of the last event's records,
    /// in record order: what the presence layer needs to withdraw delayed records later.
    public func forEachLastFiring(_ body: (_ campaign: Int, _ fireDate: Int64) -> Void) {
        for i in 0..<scratch.pending.count { body(Int(scratch.pending[i].index), scratch.pending[i].fireDate) }
    }

    /// The ledger's slot for the device locale, through the engine's slot when it has one.
    private mutating func ledgerLocaleSlot(engineSlot: UInt32?, _ locale: UnsafeBufferPointer<UInt8>?) -> UInt32 {
        guard let engineSlot else { return ledger.localeSlot(locale.map(InPlaceEvent.text)) }
        return ledger.localeSlot(engineSlot: Int(engineSlot), locale)
    }

    /// What every campaign decides for `event` against the current state, without changing it.
    public func explain(_ event: BeaconEvent) -> [(campaign: Campaign, verdict: Verdict)] {
        var seen: Set<CampaignID> = []
        return campaigns.campaigns.map { campaign in
            let last = store.lastFiring(device: event.device, campaign: campaign.id)
            var verdict = campaign.verdict(kind: event.kind, beacon: event.beacon, time: event.time, lastFiring: last)
            if case .fires = verdict, seen.contains(campaign.id) { verdict = .sharedEidFiredFirst }
            if case .fires = verdict { seen.insert(campaign.id) }
            return (campaign, verdict)
        }
    }
}
