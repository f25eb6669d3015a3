/// Matches beacon events against a campaign set and emits scheduled, localized records.
///
/// No I/O: the caller feeds events and takes records. State lives in `store`, updated when a record
/// is emitted, at event time (SPEC section 2).
public struct RulesEngine<Store: SuppressionStore> {
    public let campaigns: CampaignSet
    public let chooser: LanguageChooser
    public var store: Store
    /// Reused per event so that matching does not allocate.
    var scratch: [Int32] = []
    /// Each beacon seen in events, numbered, with its candidate campaigns (`CampaignSet.candidates`:
    /// exact, UUID-wide and instant ones merged in load order), worked out once per beacon.
    /// The payload is where the beacon's candidates are in `candidateLists`: those an enter can fire,
    /// then those an exit can fire, as start << 32 | enter count << 16 | exit count.
    var beaconNumbers = NumberingTable<BeaconID>()
    /// Each numbered beacon's candidates (campaign indices) back to back: 4 bytes each, so an
    /// event's list is one cache line or two. Split by trigger, so the loop does not branch on
    /// the trigger unpredictably.
    var candidateLists: [Int32] = []
    /// One row per campaign, its rule with what matching reads beside it. Rows of venue-wide and
    /// instant campaigns, which most events are candidates of, stay in cache.
    let rows: [CandidateRow<Store.CampaignKey>]
    /// The current event's beacon number, -1 when it has none (the table is full).
    var eventBeacon = -1
    /// Beacons numbered so far (tests: which candidate path events took).
    var numberedBeacons: Int { beaconNumbers.count }
    /// Beacons numbered, and candidates listed (4 bytes each), at most; past these (hostile
    /// input: endless made-up beacons of a UUID with venue-wide campaigns), candidates are worked
    /// out per event.
    /// Internal and per engine so that tests can drive every event down the per-event path.
    var beaconLimit = 1 << 20
    var rowLimit = 1 << 21
    /// The firings of the current event (internal: the delivery ledger reads them).
    var pending: [Firing] = []
    /// Rendered record tails (see `RecordWriter`), each with its line's newline, and where each is
    /// by (campaign, device language, trigger): address << 16 | length. They never move, so a
    /// writer that collects references points at them instead of copying ~1 KB per record.
    var tailArena = StableByteArena()
    /// What the references of a writer that collects them (`JSONWriter.appendStable`) point
    /// into: a holder keeps those bytes valid past this engine (a server's answer log, across a
    /// reload) by keeping this object.
    public var referencedStorage: AnyObject { tailArena }
    var tailIndex: RuleLocaleTable
    /// The ledger's `languageEpoch` under which the language of every cached tail was noted
    /// (nil: no tail cached yet; 0: some tail was cached without it, with the ledger off or
    /// another ledger cache). While it is the ledger's, a record with a cached tail has its
    /// language in the ledger, and `noteDeliveries` does not look it up.
    var tailLanguagesEpoch: UInt64?
    /// Cached tails by what makes them the same across device locales (`tailShare`).
    var sharedTails: [UInt64: Int64] = [:]
    /// Each campaign's payload as JSON, written the first time one of its tails is rendered.
    var payloadJSON: [[UInt8]?] = []
    /// Tails this long or longer are rendered per record (the packed length has 16 bits).
    static var longestCachedTail: Int { 1 << 16 }
    private var localeSlots: [String: UInt32] = [:]
    /// The first few locales seen that are at most 7 bytes long (`shortTag`), with their slots,
    /// looked up before `localeSlots`.
    private var recentLocales: [(UInt64, UInt32)] = []
    /// The head runs of each campaign (rendered at init) and of the current event (`RecordHead`).
    private let campaignHeads: CampaignHeads
    private var eventHead = EventHead()
    /// Where `write` joins the event's records before appending them (reused).
    private var joinScratch: [UInt8] = []
    /// Every delivered notification and what the device reported about it (`respond(to:)`).
    public var ledger = DeliveryLedger()
    /// The handlers clicks run (`respond(to:)`).
    public var actionRegistry = ActionRegistry()
    /// The dwell length an enter is matched as (0: a plain enter). Dwell campaigns answer only
    /// dwell events of their length; other campaigns only plain enters.
    var dwellMatch: Int64 = 0

    /// Where `prefetch` keeps a word of what it loaded, so the loads are not optimized away.
    var prefetchSink: UInt64 = 0
    /// What the last `prefetch(batch)` found, by each event's place in that batch (whose `stamp`
    /// is `prefetchedStamp`): the device's key when the store knew it, and the beacon's number and
    /// candidate run (number -1: not numbered then). `write(batch, at:)` starts from these instead
    /// of looking both up again; what was not known then is looked up as usual.
    var prefetchedStamp: UInt64 = 0
    var prefetchedDevices: [Store.DeviceKey?] = []
    var prefetchedBeacons: [(number: Int32, run: UInt64)] = []

    /// Distinct device languages whose record tails are cached; beyond this, tails are rendered per record.
    static var cachedLanguageLimit: Int { 1024 }

    struct Firing {
        var fireDate: Int64
        var rank: Int32
        var index: Int32
        /// The rule's campaign id slot: actions that share an eid fire once per event.
        var idSlot: Int32
        /// The rule's `isSilent` (the ledger skips silent records without reading the rule again).
        var isSilent: Bool
        /// The row's `keepsState`: the firing is remembered in the store.
        var keepsState: Bool
        /// Where the record's tail is in `tailArena` (address << 16 | length), -1 when not cached.
        var tail: Int64 = -1
    }

    public init(campaigns: CampaignSet, locales: LocaleTable, store: Store) {
        self.campaigns = campaigns
        self.chooser = LanguageChooser(locales: locales)
        self.store = store
        // The store's key for each distinct campaign id (`CompiledRule.idSlot`), kept in the rows.
        var keys: [Store.CampaignKey] = []
        keys.reserveCapacity(campaigns.campaignIDs.count)
        for id in campaigns.campaignIDs { keys.append(self.store.key(campaign: id)) }
        campaignHeads = CampaignHeads(campaigns)
        tailIndex = RuleLocaleTable(rules: campaigns.campaigns.count)
        rows = campaigns.rules.map { CandidateRow($0, key: keys[Int($0.idSlot)], keepsState: campaigns.keepsState[Int($0.idSlot)]) }
        scratch.reserveCapacity(16)
        pending.reserveCapacity(16)
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
            if ledger.isEnabled && !pending.isEmpty { noteDeliveries(event) }
        }
        for firing in pending {
            let campaign = campaigns.campaigns[Int(firing.index)]
            emit(record(for: campaign, event: event, fireDate: Timestamp(milliseconds: firing.fireDate)))
        }
    }

    /// The hot path: the event's records appended to `writer` as JSON lines. Each head is joined
    /// from runs rendered once (`RecordHead`: the campaign's at load, the event's once per event);
    /// each tail is rendered once per (campaign, trigger, device language) and cached.
    public mutating func write(_ event: BeaconEvent, into writer: inout JSONWriter) {
        InPlaceEvent.with(event) { write($0, into: &writer) }
    }

    /// `write` for an event read in place (`InPlaceEventBatch`): no `String` per field.
    public mutating func write(_ event: InPlaceEvent, into writer: inout JSONWriter) {
        write(event, knownDevice: nil, knownBeacon: nil, into: &writer)
    }

    /// `write` for the event at `i` of `batch`, starting from what `prefetch(batch)` found for it
    /// when that was this batch's last prefetch.
    public mutating func write(_ batch: borrowing InPlaceEventBatch, at i: Int, into writer: inout JSONWriter) {
        if batch.stamp == prefetchedStamp && i < prefetchedDevices.count && i < prefetchedBeacons.count {
            write(batch[i], knownDevice: prefetchedDevices[i], knownBeacon: prefetchedBeacons[i], into: &writer)
        } else {
            write(batch[i], knownDevice: nil, knownBeacon: nil, into: &writer)
        }
    }

    private mutating func write(_ event: InPlaceEvent, knownDevice: Store.DeviceKey?, knownBeacon: (number: Int32, run: UInt64)?, into writer: inout JSONWriter) {
        match(event, knownDevice: knownDevice, knownBeacon: knownBeacon)
        if pending.isEmpty { return }
        eventHead.prepare(event)
        let slot = localeSlot(event.locale)
        let ledgerLocale = ledger.isEnabled ? ledgerLocaleSlot(engineSlot: slot, event.locale) : 0
        // Render what the cache lacks first, so the write loop below only reads the arenas.
        var uncached: [Int: [UInt8]] = [:]
        // By index: iterating `pending` while setting `pending[i].tail` would copy the array.
        for i in pending.indices {
            let firing = pending[i]
            if let slot {
                if let packed = tailIndex.value(rule: Int(firing.index), locale: slot, trigger: event.kind) {
                    pending[i].tail = packed
                } else {
                    let (packed, line) = missingTail(index: Int(firing.index), slot: slot, ledgerLocale: ledgerLocale, event: event)
                    if let packed { pending[i].tail = packed } else { uncached[i] = line }
                }
            } else {
                uncached[i] = renderTail(index: Int(firing.index), event: event.tailEvent).line
            }
        }
        if ledger.isEnabled {
            let cachedTailsNoted = tailLanguagesEpoch != 0 && tailLanguagesEpoch == ledger.languageEpoch
            if eventHead.idClosingIsUnescaped {
                let head = eventHead.bytes
                head.withUnsafeBufferPointer { noteDeliveries(event, locale: ledgerLocale, idSuffix: UnsafeBufferPointer(rebasing: $0[eventHead.idClosing]), cachedTailsNoted: cachedTailsNoted) }
            } else {
                noteDeliveries(event, locale: ledgerLocale, cachedTailsNoted: cachedTailsNoted)
            }
        }
        var joined: [UInt8] = []
        swap(&joined, &joinScratch)
        joinRecords(event.time.milliseconds, uncached: uncached, scratch: &joined, into: &writer)
        swap(&joined, &joinScratch)
    }

    /// Appends `pending`'s records: each head joined from its campaign's runs and the event's
    /// (`RecordHead`), then its tail, referenced when the writer collects references, else copied.
    /// Heads are joined in `scratch` with plain copies and appended at once, up to a tail that is
    /// copied: that goes straight from the cache into the writer.
    private func joinRecords(_ eventTime: Int64, uncached: [Int: [UInt8]], scratch: inout [UInt8], into writer: inout JSONWriter) {
        let offsets = campaignHeads.offsets
        // Room for every head: the campaign's runs, the event's, and a fire date of its own.
        var needed = 0
        for firing in pending {
            let k = Int(firing.index) * 2
            needed += offsets[k + 2] - offsets[k] + eventHead.time.upperBound + Timestamp.longestRFC3339
        }
        if scratch.count < needed { scratch = [UInt8](repeating: 0, count: max(needed, scratch.count * 2)) }
        scratch.withUnsafeMutableBufferPointer { out in
            campaignHeads.bytes.withUnsafeBufferPointer { heads in
                eventHead.bytes.withUnsafeBufferPointer { own in
                    var c = ByteCursor(out.baseAddress!)
                    /// Appends the heads joined so far and starts the scratch again.
                    func flush() {
                        writer.bytes.append(contentsOf: c.written)
                        c.rewind()
                    }
                    let idClosing = UnsafeBufferPointer(rebasing: own[eventHead.idClosing])
                    let fields = UnsafeBufferPointer(rebasing: own[eventHead.fields])
                    let fieldsAndTime = UnsafeBufferPointer(rebasing: own[eventHead.fields.lowerBound..<eventHead.time.upperBound])
                    for (i, firing) in pending.enumerated() {
                        let k = Int(firing.index) * 2
                        c.copy(UnsafeBufferPointer(rebasing: heads[offsets[k]..<offsets[k + 1]]))
                        c.copy(idClosing)
                        c.copy(UnsafeBufferPointer(rebasing: heads[offsets[k + 1]..<offsets[k + 2]]))
                        if firing.fireDate == eventTime {
                            c.copy(fieldsAndTime)
                        } else {
                            c.copy(fields)
                            RecordHead.writeFireDate(&c, Timestamp(milliseconds: firing.fireDate))
                        }
                        if firing.tail >= 0 {
                            let tail = UnsafeBufferPointer(start: UnsafePointer<UInt8>(bitPattern: Int(firing.tail >> 16))!, count: Int(firing.tail & 0xFFFF))
                            if writer.refers(tail) {
                                writer.appendReference(at: writer.bytes.count + c.count, tail)
                            } else {
                                flush()
                                writer.bytes.append(contentsOf: tail)
                            }
                        } else {
                            flush()
                            writer.bytes.append(contentsOf: uncached[i]!)
                        }
                    }
                    flush()
                }
            }
        }
    }

    /// The presence layer's dwell event: `event` (kind enter, at the dwell time) matched against the
    /// campaigns whose `dwell` is `dwellMilliseconds`, records appended to `writer`.
    public mutating func writeDwell(_ event: BeaconEvent, dwellMilliseconds: Int64, into writer: inout JSONWriter) {
        dwellMatch = dwellMilliseconds
        defer { dwellMatch = 0 }
        write(event, into: &writer)
    }

    /// `process` for a dwell event (see `writeDwell`).
    public mutating func processDwell(_ event: BeaconEvent, dwellMilliseconds: Int64) -> [NotificationRecord] {
        dwellMatch = dwellMilliseconds
        defer { dwellMatch = 0 }
        return process(event)
    }

    /// The campaigns (index in `campaigns.campaigns`) and fire dates (ms) of the last event's records,
    /// in record order: what the presence layer needs to withdraw delayed records later.
    public func forEachLastFiring(_ body: (_ campaign: Int, _ fireDate: Int64) -> Void) {
        for firing in pending { body(Int(firing.index), firing.fireDate) }
    }

    /// The ledger's slot for the device locale, through the engine's slot when it has one.
    private mutating func ledgerLocaleSlot(engineSlot: UInt32?, _ locale: UnsafeBufferPointer<UInt8>?) -> UInt32 {
        guard let engineSlot else { return ledger.localeSlot(locale.map(InPlaceEvent.text)) }
        return ledger.localeSlot(engineSlot: Int(engineSlot), locale)
    }

    private mutating func localeSlot(_ bytes: UnsafeBufferPointer<UInt8>?) -> UInt32? {
        guard let bytes else { return 0 }
        // A handful of locales make up nearly every stream, and their tags are short: one
        // compare of the tag's bytes as a word is cheaper than hashing it.
        let word = Self.shortTag(bytes)
        if word != 0 { for (known, slot) in recentLocales where known == word { return slot } }
        let locale = InPlaceEvent.text(bytes)
        if let slot = localeSlots[locale] {
            if word != 0 && recentLocales.count < 8 { recentLocales.append((word, slot)) }
            return slot
        }
        guard localeSlots.count < Self.cachedLanguageLimit else { return nil }
        let slot = UInt32(localeSlots.count + 1)
        localeSlots[locale] = slot
        return slot
    }

    /// A tag of at most 7 bytes as one word (its bytes, then its length in the top byte); 0 for
    /// a longer one.
    @inline(__always)
    static func shortTag(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard bytes.count < 8 else { return 0 }
        var word = UInt64(bytes.count) << 56
        for i in 0..<bytes.count { word |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        return word
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
