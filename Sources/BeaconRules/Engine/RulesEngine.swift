/// Matches beacon events against a campaign set and emits scheduled, localized records.
///
/// No I/O: the caller feeds events and takes records. State lives in `store`, updated when a record
/// is emitted, at event time (SPEC section 2).
public struct RulesEngine<Store: SuppressionStore> {
    public let campaigns: CampaignSet
    public let chooser: LanguageChooser
    public var store: Store
    /// The store's key for each distinct campaign id (`CompiledRule.idSlot`).
    private var campaignKeys: [Store.CampaignKey]
    /// Reused per event so that matching does not allocate.
    private var scratch: [Int32] = []
    private var firedSlots: [Int32] = []
    private var pending: [Firing] = []
    /// Rendered record tails by (campaign, trigger, device language), see `RecordWriter`.
    private var tails: [UInt64: [UInt8]] = [:]
    private var localeSlots: [String: UInt32] = [:]
    private var eventScratch = EventScratch()

    /// Distinct device languages whose record tails are cached; beyond this, tails are rendered per record.
    static var cachedLanguageLimit: Int { 1024 }

    struct Firing {
        var fireDate: Int64
        var rank: Int32
        var index: Int32
    }

    public init(campaigns: CampaignSet, locales: LocaleTable, store: Store) {
        self.campaigns = campaigns
        self.chooser = LanguageChooser(locales: locales)
        self.store = store
        var keys: [Store.CampaignKey] = []
        keys.reserveCapacity(campaigns.campaignIDs.count)
        for id in campaigns.campaignIDs { keys.append(self.store.key(campaign: id)) }
        campaignKeys = keys
        scratch.reserveCapacity(16)
    }

    /// Every record the event produces, ordered by `fireDate`, then campaign.
    public mutating func process(_ event: BeaconEvent) -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        process(event) { records.append($0) }
        return records
    }

    /// Streams the event's records to `emit` in SPEC order.
    public mutating func process(_ event: BeaconEvent, emit: (NotificationRecord) -> Void) {
        match(event)
        for firing in pending {
            let campaign = campaigns.campaigns[Int(firing.index)]
            emit(record(for: campaign, event: event, fireDate: Timestamp(milliseconds: firing.fireDate)))
        }
    }

    /// Decides which campaigns fire for `event`, updates the state, and leaves them in `pending`
    /// sorted by fire date, then campaign.
    private mutating func match(_ event: BeaconEvent) {
        pending.removeAll(keepingCapacity: true)
        let exact = campaigns.byBeacon[event.beacon]
        let uuid = campaigns.byUUID[event.beacon.uuid]
        let list: [Int32]
        if uuid == nil && campaigns.instant.isEmpty {
            guard let exact else { return }
            list = exact
        } else {
            campaigns.candidates(for: event.beacon, into: &scratch)
            list = scratch
        }
        if list.isEmpty { return }
        firedSlots.removeAll(keepingCapacity: true)
        let time = event.time.milliseconds
        let bit = CompiledRule.bit(event.kind)
        var device = store.existingKey(device: event.device)
        for index in list {
            let rule = campaigns.rules[Int(index)]
            if rule.triggerMask & bit == 0 { continue }
            // Actions that share an eid are one campaign: the first that fires speaks for it.
            if firedSlots.contains(rule.idSlot) { continue }
            let key = campaignKeys[Int(rule.idSlot)]
            let last = device.flatMap { store.lastFiring($0, key)?.milliseconds }
            guard let fireDate = campaigns.fireDate(rule, time: time, last: last) else { continue }
            let deviceKey = device ?? store.key(device: event.device)
            device = deviceKey
            store.recordFiring(deviceKey, key, at: event.time)
            firedSlots.append(rule.idSlot)
            pending.append(Firing(fireDate: fireDate, rank: rule.rank, index: index))
        }
        if pending.count > 1 {
            pending.sort { ($0.fireDate, $0.rank, $0.index) < ($1.fireDate, $1.rank, $1.index) }
        }
    }

    /// The hot path: the event's records appended to `writer` as JSON lines, from cached tails.
    public mutating func write(_ event: BeaconEvent, into writer: inout JSONWriter) {
        match(event)
        if pending.isEmpty { return }
        eventScratch.prepare(event)
        let slot = localeSlot(event.locale)
        let bit = UInt64(CompiledRule.bit(event.kind))
        for firing in pending {
            let rule = campaigns.rules[Int(firing.index)]
            let fireDate = firing.fireDate == event.time.milliseconds ? eventScratch.time : eventScratch.format(firing.fireDate)
            NotificationRecord.appendHead(
                to: &writer, kind: rule.isSilent ? .silent : .notification, eid: campaigns.escapedEids[Int(firing.index)],
                device: eventScratch.device, event: eventScratch.id, trigger: event.kind, pid: eventScratch.pid, fireDate: fireDate)
            if let slot {
                let key = UInt64(firing.index) << 32 | UInt64(slot) << 2 | bit
                if let tail = tails[key] {
                    writer.bytes.append(contentsOf: tail)
                } else {
                    let tail = renderTail(index: Int(firing.index), event: event)
                    tails[key] = tail
                    writer.bytes.append(contentsOf: tail)
                }
            } else {
                writer.bytes.append(contentsOf: renderTail(index: Int(firing.index), event: event))
            }
            writer.bytes.append(0x0A)
        }
    }

    private func renderTail(index: Int, event: BeaconEvent) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        record(for: campaigns.campaigns[index], event: event, fireDate: event.time).appendTail(to: &w)
        return w.bytes
    }

    private mutating func localeSlot(_ locale: String?) -> UInt32? {
        guard let locale else { return 0 }
        if let slot = localeSlots[locale] { return slot }
        guard localeSlots.count < Self.cachedLanguageLimit else { return nil }
        let slot = UInt32(localeSlots.count + 1)
        localeSlots[locale] = slot
        return slot
    }

    /// What every campaign decides for `event` against the current state, without changing it.
    public func explain(_ event: BeaconEvent) -> [(campaign: Campaign, verdict: Verdict)] {
        var seen: Set<CampaignID> = []
        return campaigns.campaigns.map { campaign in
            let last = store.lastFiring(device: event.device, campaign: campaign.id)
            var verdict = campaign.verdict(kind: event.kind, beacon: event.beacon, time: event.time, lastFiring: last)
            if case .fires = verdict, seen.contains(campaign.id) { verdict = .alreadySentOnce }
            if case .fires = verdict { seen.insert(campaign.id) }
            return (campaign, verdict)
        }
    }

    /// Builds the record: localized strings, buttons and category (SPEC sections 2 and 3).
    public func record(for campaign: Campaign, event: BeaconEvent, fireDate: Timestamp) -> NotificationRecord {
        let id = campaign.eid + ":" + event.device + ":" + event.id
        let payload = campaign.content.payload ?? .null
        let url = campaign.content.url.flatMap { $0.isEmpty ? nil : $0 }
        if campaign.actionType == .silent {
            return NotificationRecord(
                kind: .silent, id: id, campaign: campaign.eid, device: event.device, event: event.id,
                trigger: event.kind, beacon: event.beacon, fireDate: fireDate, actionType: .silent, language: nil,
                title: nil, body: nil, url: url, category: nil, payload: payload)
        }
        var title = campaign.content.subject
        var body = campaign.content.body
        var language: String?
        var confirm = ConfirmAction.open
        var foreground = true
        let okTitle: String?
        let cancelTitle: String?
        let categoryLanguage: String
        if let block = campaign.block(for: event.kind), let chosen = chooser.choose(in: block, deviceTag: event.locale) {
            language = chosen.key
            confirm = block.confirmAction
            foreground = block.actInForeground
            title = chosen.strings["title"] ?? title
            body = chosen.strings["message"] ?? body
            okTitle = chosen.strings["okButtonTitle"] ?? chooser.defaultConfirmTitle(confirm, tag: chosen.tag)
            cancelTitle = chosen.strings["cancelButtonTitle"] ?? chooser.defaultCancelTitle(tag: chosen.tag)
            categoryLanguage = chosen.key
        } else {
            if let block = campaign.block(for: event.kind) {
                confirm = block.confirmAction
                foreground = block.actInForeground
            }
            okTitle = chooser.defaultConfirmTitle(confirm, tag: event.locale)
            cancelTitle = chooser.defaultCancelTitle(tag: event.locale)
            categoryLanguage = chooser.locales.servingTag(for: event.locale) ?? "en"
        }
        let category = NotificationCategory(
            id: campaign.eid + "." + event.kind.name + "." + categoryLanguage,
            actions: [
                CategoryAction(id: "ok", title: okTitle, behavior: confirm.rawValue, foreground: foreground),
                CategoryAction(id: "cancel", title: cancelTitle, behavior: "dismiss", foreground: false),
            ])
        return NotificationRecord(
            kind: .notification, id: id, campaign: campaign.eid, device: event.device, event: event.id,
            trigger: event.kind, beacon: event.beacon, fireDate: fireDate, actionType: campaign.actionType,
            language: language, title: title, body: body, url: url, category: category, payload: payload)
    }
}

/// The event's own parts of a record, escaped and formatted once per event however many records it yields.
struct EventScratch {
    var device: [UInt8] = []
    var id: [UInt8] = []
    var pid: [UInt8] = []
    var time: [UInt8] = []
    private var other: [UInt8] = []

    mutating func prepare(_ event: BeaconEvent) {
        var w = JSONWriter()
        swap(&w.bytes, &device)
        w.bytes.removeAll(keepingCapacity: true)
        w.escapedContents(event.device)
        swap(&w.bytes, &device)
        swap(&w.bytes, &id)
        w.bytes.removeAll(keepingCapacity: true)
        w.escapedContents(event.id)
        swap(&w.bytes, &id)
        pid.removeAll(keepingCapacity: true)
        event.beacon.appendPid(to: &pid)
        time.removeAll(keepingCapacity: true)
        event.time.appendRFC3339(to: &time)
    }

    mutating func format(_ milliseconds: Int64) -> [UInt8] {
        other.removeAll(keepingCapacity: true)
        Timestamp(milliseconds: milliseconds).appendRFC3339(to: &other)
        return other
    }
}
