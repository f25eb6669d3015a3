import Synchronization

/// Every notification record the engine delivered, with what the device has reported about it:
/// what a response needs (its campaign, language, trigger, beacon, locale) and the funnel states,
/// each kept once per notification however often or in whatever order responses arrive.
///
/// Compact by design: a record id is kept as its 64-bit FNV-1a hash, an entry is 32 bytes, and
/// the id index 26 to 51 more (a `GrowingIndex` of 16-byte slots, 5/16 to 5/8 full, which grows
/// without putting every id again at once); campaigns,
/// languages, locales, beacons and button ids are interned. (A false match of two ids
/// needs a 64-bit hash collision that also passes the device check in `respond`.)
public struct DeliveryLedger: Sendable {
    /// Off: the engine remembers nothing and every response is an unknown record id.
    public var isEnabled = true

    struct Entry: Sendable {
        var key: UInt64
        /// Engine campaign index when delivered in this run, -1 when loaded from a saved ledger.
        var rule: Int32
        var campaign: UInt32
        var beacon: UInt32
        var locale: UInt32
        /// Languages come from the loaded campaigns and locale files, never from clients: 16 bits
        /// are plenty, and keep the entry at 32 bytes.
        var languageSlot: UInt16
        /// Bit n: button id `actionIds[n]` was clicked (ids past 16 are in `extraClicks`).
        var clicks: UInt16
        var trigger: EventKind
        var state: UInt8
        /// The record's `fireDate` in whole seconds (rounded up) since 1970: the response window
        /// is counted from it.
        var fired: UInt32

        var language: UInt32 { UInt32(languageSlot) }
    }

    static let presented: UInt8 = 1, opened: UInt8 = 2, clicked: UInt8 = 4, dismissed: UInt8 = 8

    /// Delivered notifications, each id once, in `index`. In chunks: a ledger of millions of
    /// deliveries is not copied when it grows.
    var entries = ChunkedArray<Entry>(shift: 14)
    /// Record id hash → entry; snoozed copies of a record map to the original's entry.
    var index = GrowingIndex<Int32>()
    /// Deliveries not yet in `entries` and `index` (an id may repeat here): the hot path only
    /// appends, and the index is brought up to date (`catchUp`) when the ledger is read, so a
    /// stream without responses never pays for random inserts into a large table.
    var unindexed = ChunkedLog<PendingDelivery>(chunkCapacity: 1 << 16)

    /// A delivery waiting in `unindexed`: 24 bytes, what differs per record. Its campaign slot
    /// (`ruleSlots`) and language (`languageCache`) are the same for every record of its rule,
    /// locale and trigger, and are filled in when it is indexed.
    struct PendingDelivery: Sendable {
        var key: UInt64
        var rule: Int32
        var beacon: UInt32
        var locale: UInt32
        var trigger: EventKind
        var fired: UInt32
    }
    /// Hashes of (record id, action id) whose handler already ran: a repeated click runs nothing.
    var handled: Set<UInt64> = []
    /// Per entry key: its rescheduled ids (in `index`) and its handled clicks (in `handled`), so
    /// that they go with it when it is forgotten.
    var aliasesOf: [UInt64: [UInt64]] = [:]
    var handledOf: [UInt64: [UInt64]] = [:]
    /// Event time (ms) after a record's `fireDate` in which responses to it are taken.
    public var responseWindow: Int64 = Retention.default.responseWindow
    /// Deliveries forgotten in the last one or two response windows, by key, with their `fired`:
    /// a response to one is refused as too late, not as an unknown id.
    var forgotten = GrowingIndex<UInt32>()
    var forgottenBefore = GrowingIndex<UInt32>()
    /// Event time (ms) at which `forgotten` becomes `forgottenBefore`; `sweep`: where `forget`
    /// goes on in `entries`.
    var rotateForgottenAt = Int64.min
    var sweep = 0
    /// No delivery fired before this (seconds): until the window after it has passed, `forget`
    /// has nothing to do and returns at once (without indexing the deliveries waiting). Lowered
    /// by each delivery, raised when a pass of the sweep has seen every entry.
    var earliestFired = UInt32.max
    /// The earliest `fired` seen by the sweep's current pass, and of deliveries since it began.
    var passEarliest = UInt32.max
    var campaignIDs = Interned<CampaignID>()
    /// The eids as written (the first seen per campaign id), for reports.
    var campaignNames: [String] = []
    var languages = Interned<String>()
    /// Slot 0 is "no locale".
    /// Locale slot 0 is "no locale"; slot n is `locales[n - 1]`.
    var locales = Interned<String>()
    var beacons = Interned<BeaconID>()
    var actionIds: [String] = []
    var actionSlots: [String: Int] = [:]
    /// Clicks on button ids beyond the 16 that fit the bit set, per entry.
    var extraClicks: [Int32: Set<String>] = [:]
    /// Clicks on action types with no handler, per (campaign, language, type).
    var unhandled: [UnhandledKey: Int] = [:]
    /// Engine caches: campaign index → campaign slot, and (index, locale, trigger) → language slot.
    var ruleSlots: [UInt32] = []
    /// FNV-1a state after `EID:` per campaign index, so a delivery hashes only `DEVICE:EVENT`.
    var ruleHashes: [UInt64] = []
    var languageCache = RuleLocaleTable(rules: 0)
    /// Names what `languageCache` holds: renewed (from a process-wide count) whenever the cache
    /// is replaced, so an engine that noted a language under this epoch knows it is still there.
    private(set) var languageEpoch = DeliveryLedger.nextEpoch()
    private static let epochs = Atomic<UInt64>(0)
    private static func nextEpoch() -> UInt64 { epochs.add(1, ordering: .relaxed).newValue }
    /// The locale slot per engine locale slot (`.max`: not asked yet), so a delivery does not hash
    /// the locale string again.
    var engineLocales: [UInt32] = []
    /// The beacon slot per engine beacon number (`.max`: not asked yet).
    var engineBeacons: [UInt32] = []
    /// On for a ledger that a store saves: what changed since `takeChanges` is then kept, so that
    /// each commit saves only those lines. Off (the default), nothing extra is kept.
    public var recordsChanges = false
    /// On for a ledger that other processes share through their store: a delivery forgotten is
    /// saved as a tombstone line (its id and `fired`) for as long as it is kept here, so that a
    /// late response reaching another process is refused as late, not as an unknown id.
    public var savesTombstones = false
    var changed = Changes()

    mutating func noteChange(_ entry: Int32) {
        if recordsChanges { changed.entries.insert(entry) }
    }

    struct Changes: Sendable {
        var entries: Set<Int32> = []
        var aliases: [UInt64] = []
        var handled: [UInt64] = []
        var unhandled: Set<UnhandledKey> = []
        /// Keys of saved lines that are gone (forgotten deliveries, their aliases and clicks).
        var removed: [String] = []
        /// Ids forgotten, with their `fired` and the event time (ms) they were forgotten at (only
        /// with `savesTombstones`).
        var tombstones: [(key: UInt64, fired: UInt32, at: Int64)] = []
        var isEmpty: Bool { entries.isEmpty && aliases.isEmpty && handled.isEmpty && unhandled.isEmpty && removed.isEmpty && tombstones.isEmpty }
    }

    struct UnhandledKey: Sendable, Hashable {
        var campaign: UInt32
        var language: UInt32
        var type: String
    }

    /// A ledger with no deliveries.
    public init() {}

    /// Notifications remembered (snoozed copies are not counted twice). With deliveries waiting
    /// to be indexed this indexes a copy of the whole ledger: a caller that asks often (a
    /// server's metrics) uses `indexedCount()`.
    public var count: Int { unindexed.isEmpty ? entries.count : caughtUp().entries.count }

    /// Notifications remembered, as `count`, after indexing the deliveries waiting to be (the work
    /// the next read of the ledger would do, done now, once each). `count` on a ledger with
    /// deliveries waiting copies the whole ledger to index them, which made a server's
    /// once-a-second metrics sample a stall as long as the ledger (20 ms at 300,000 deliveries).
    public mutating func indexedCount() -> Int {
        catchUp()
        return entries.count
    }

    /// Moves `unindexed` into `entries` and `index`; a repeated id keeps its first entry.
    mutating func catchUp() {
        if unindexed.isEmpty { return }
        // `entries` grows a chunk at a time, `index` a few slots per delivery.
        for pending in unindexed where index[pending.key] == nil {
            let next = Int32(entries.count)
            index[pending.key] = next
            noteChange(next)
            let rule = Int(pending.rule)
            let language = language(rule: rule, locale: pending.locale, trigger: pending.trigger) ?? 0
            entries.append(Entry(
                key: pending.key, rule: pending.rule, campaign: ruleSlots[rule], beacon: pending.beacon, locale: pending.locale,
                languageSlot: UInt16(clamping: language), clicks: 0, trigger: pending.trigger, state: 0, fired: pending.fired))
        }
        unindexed.removeAll()
    }

    /// The ledger with every delivery indexed, for readers that can not change it (a copy only
    /// when deliveries are waiting).
    func caughtUp() -> DeliveryLedger {
        if unindexed.isEmpty { return self }
        var copy = self
        copy.catchUp()
        return copy
    }

    /// Sizes the engine caches (`ruleSlots`, `ruleHashes`, `languageCache`) for `rules`
    /// campaign indices, empty, unless they already are.
    mutating func prepareRuleTables(rules: Int) {
        if ruleSlots.count != rules {
            ruleSlots = Array(repeating: .max, count: rules)
            ruleHashes = Array(repeating: 0, count: rules)
        }
        if languageCache.rules != rules {
            languageCache = RuleLocaleTable(rules: rules)
            languageEpoch = Self.nextEpoch()
        }
    }

    /// The language of records of (campaign index, ledger locale slot, trigger), once noted.
    @inline(__always)
    func language(rule: Int, locale: UInt32, trigger: EventKind) -> UInt32? {
        languageCache.value(rule: rule, locale: locale, trigger: trigger).map { UInt32(truncatingIfNeeded: $0) }
    }

    mutating func setLanguage(_ language: UInt32, rule: Int, locale: UInt32, trigger: EventKind) {
        languageCache.set(rule: rule, locale: locale, trigger: trigger, Int64(language))
    }

    /// The ledger key of a record id.
    public static func key(_ recordID: String) -> UInt64 {
        var h = FNV1a()
        h.add(recordID.utf8)
        return h.value
    }

    mutating func entryIndex(_ recordID: String) -> Int32? {
        catchUp()
        return index[Self.key(recordID)]
    }

    /// Forgets the engine's campaign indexes (after a reload the same index may be another campaign).
    public mutating func campaignsChanged() {
        catchUp()
        ruleSlots = []
        ruleHashes = []
        languageCache = RuleLocaleTable(rules: 0)
        languageEpoch = Self.nextEpoch()
        engineLocales = []
        engineBeacons = []
        for i in entries.indices { entries[i].rule = -1 }
    }

    /// Maps a rescheduled record id to the entry of the notification it repeats.
    mutating func alias(_ key: UInt64, to entry: Int32) {
        catchUp()
        guard index[key] == nil else { return }
        index[key] = entry
        aliasesOf[entries[Int(entry)].key, default: []].append(key)
        if recordsChanges { changed.aliases.append(key) }
    }

    /// True the first time a (record, button) pair is seen: its handler runs then only.
    mutating func firstHandling(_ key: UInt64, entry: Int32) -> Bool {
        guard handled.insert(key).inserted else { return false }
        handledOf[entries[Int(entry)].key, default: []].append(key)
        if recordsChanges { changed.handled.append(key) }
        return true
    }

    mutating func countUnhandled(_ key: UnhandledKey) {
        unhandled[key, default: 0] += 1
        if recordsChanges { changed.unhandled.insert(key) }
    }

    mutating func campaignSlot(_ id: CampaignID, eid: String) -> UInt32 {
        let slot = campaignIDs.slot(id)
        if Int(slot) == campaignNames.count { campaignNames.append(eid) }
        return slot
    }

    mutating func languageSlot(_ language: String) -> UInt32 { languages.slot(language) }

    mutating func beaconSlot(_ beacon: BeaconID) -> UInt32 { beacons.slot(beacon) }

    mutating func localeSlot(_ locale: String?) -> UInt32 { locale.map { locales.slot($0) + 1 } ?? 0 }

    /// `localeSlot(locale)` through the engine's slot for the same locale: hashed once per engine slot.
    mutating func localeSlot(engineSlot i: Int, _ locale: UnsafeBufferPointer<UInt8>?) -> UInt32 {
        if let known = Self.known(engineLocales, i) { return known }
        let slot = localeSlot(locale.map(InPlaceEvent.text))
        Self.remember(&engineLocales, i, slot)
        return slot
    }

    /// `beaconSlot(beacon)` through the engine's number for the same beacon: hashed once per number.
    mutating func beaconSlot(engineNumber i: Int, _ beacon: BeaconID) -> UInt32 {
        if let known = Self.known(engineBeacons, i) { return known }
        let slot = beaconSlot(beacon)
        Self.remember(&engineBeacons, i, slot)
        return slot
    }

    /// `table[i]` when it was remembered (`.max` marks a slot not remembered yet).
    @inline(__always)
    private static func known(_ table: [UInt32], _ i: Int) -> UInt32? {
        i < table.count && table[i] != .max ? table[i] : nil
    }

    /// Static: a method given `&self.table` would copy the ledger.
    private static func remember(_ table: inout [UInt32], _ i: Int, _ slot: UInt32) {
        if i >= table.count { table.append(contentsOf: repeatElement(UInt32.max, count: i + 1 - table.count)) }
        table[i] = slot
    }

    func locale(_ slot: UInt32) -> String? { slot == 0 ? nil : locales[Int(slot - 1)] }

    /// Remembers a delivered record, indexed later (`catchUp`); an id delivered before is not
    /// counted again. The rule's campaign slot (`ruleSlots`) and its language for this locale
    /// and trigger (`setLanguage`) must be noted already.
    @inline(__always)
    mutating func deliverLater(key: UInt64, rule: Int32, locale: UInt32, beacon: UInt32, trigger: EventKind, fireDate: Int64) {
        let fired = Self.seconds(fireDate)
        if fired < earliestFired { earliestFired = fired }
        if fired < passEarliest { passEarliest = fired }
        unindexed.append(PendingDelivery(key: key, rule: rule, beacon: beacon, locale: locale, trigger: trigger, fired: fired))
    }

    /// Remembers a delivered record now (a saved ledger's line); false when the id was delivered
    /// before (it is not counted again).
    @discardableResult
    mutating func deliver(key: UInt64, rule: Int32, campaign: UInt32, language: UInt32, locale: UInt32, beacon: UInt32, trigger: EventKind, fired: UInt32) -> Bool {
        catchUp()
        guard index[key] == nil else { return false }
        if fired < earliestFired { earliestFired = fired }
        if fired < passEarliest { passEarliest = fired }
        let next = Int32(entries.count)
        index[key] = next
        noteChange(next)
        entries.append(Entry(key: key, rule: rule, campaign: campaign, beacon: beacon, locale: locale, languageSlot: UInt16(clamping: language), clicks: 0, trigger: trigger, state: 0, fired: fired))
        return true
    }

    /// Sets `bits` on an entry; true when any of them is new.
    mutating func mark(_ entry: Int32, _ bits: UInt8) -> Bool {
        let before = entries[Int(entry)].state
        entries[Int(entry)].state |= bits
        if before | bits == before { return false }
        noteChange(entry)
        return true
    }

    /// Counts a click on `actionId` once per notification; true when new.
    mutating func markClick(_ entry: Int32, actionId: String) -> Bool {
        let slot: Int
        if let known = actionSlots[actionId] { slot = known } else {
            slot = actionIds.count
            actionIds.append(actionId)
            actionSlots[actionId] = slot
        }
        if slot < 16 {
            let bit = UInt16(1) << UInt16(slot)
            let before = entries[Int(entry)].clicks
            entries[Int(entry)].clicks |= bit
            if before & bit != 0 { return false }
            noteChange(entry)
            return true
        }
        guard extraClicks[entry, default: []].insert(actionId).inserted else { return false }
        noteChange(entry)
        return true
    }

    /// The button ids clicked on an entry, in first-seen order.
    func clickedIds(_ entry: Int32) -> [String] {
        let bits = entries[Int(entry)].clicks
        var ids: [String] = []
        for (slot, id) in actionIds.prefix(16).enumerated() where bits & (UInt16(1) << UInt16(slot)) != 0 { ids.append(id) }
        if let extra = extraClicks[entry] { ids += extra.sorted() }
        return ids
    }
}

/// 64-bit FNV-1a: stable across runs and processes (Swift's `Hasher` is seeded per process), so
/// saved ledgers keep their keys.
struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func add(byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }

    mutating func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes { add(byte: byte) }
    }

    @inline(__always)
    mutating func add(bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { add(byte: byte) }
    }

    /// A string's UTF-8, straight from its storage when it is contiguous (native strings are).
    mutating func add(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { for byte in $0 { add(byte: byte) } }
        if done == nil { add(text.utf8) }
    }
}

/// Values numbered in first-seen order, so entries can hold a small slot instead of the value.
struct Interned<Value: Hashable & Sendable>: Sendable {
    private(set) var values: [Value] = []
    private var slots: [Value: UInt32] = [:]

    mutating func slot(_ value: Value) -> UInt32 {
        if let slot = slots[value] { return slot }
        let slot = UInt32(values.count)
        values.append(value)
        slots[value] = slot
        return slot
    }

    subscript(slot: Int) -> Value { values[slot] }
}
