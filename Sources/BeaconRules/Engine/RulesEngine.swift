/// Matches beacon events against a campaign set and emits scheduled, localized records.
///
/// No I/O: the caller feeds events and takes records. State lives in `store`, updated when a record
/// is emitted, at event time (SPEC section 2).
public struct RulesEngine<Store: SuppressionStore> {
    public let campaigns: CampaignSet
    public let chooser: LanguageChooser
    public var store: Store
    /// Reused per event so that matching does not allocate.
    private var candidates: [Int32] = []
    private var firedIDs: [CampaignID] = []

    public init(campaigns: CampaignSet, locales: LocaleTable, store: Store) {
        self.campaigns = campaigns
        self.chooser = LanguageChooser(locales: locales)
        self.store = store
        candidates.reserveCapacity(16)
    }

    /// Every record the event produces, ordered by `fireDate`, then campaign.
    public mutating func process(_ event: BeaconEvent) -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        process(event) { records.append($0) }
        return records
    }

    /// Streams the event's records to `emit` in SPEC order without building an array when there is at most one.
    public mutating func process(_ event: BeaconEvent, emit: (NotificationRecord) -> Void) {
        campaigns.candidates(for: event.beacon, into: &candidates)
        if candidates.isEmpty { return }
        firedIDs.removeAll(keepingCapacity: true)
        var pending: [NotificationRecord] = []
        for index in candidates {
            let campaign = campaigns.campaigns[Int(index)]
            // Actions that share an eid are one campaign: the first that fires speaks for it.
            if firedIDs.contains(campaign.id) { continue }
            if !campaign.isInstant && !campaign.trigger.matches(event.kind) { continue }
            let last = store.lastFiring(device: event.device, campaign: campaign.id)
            guard case .fires(let fireDate) = campaign.verdictAfterMatch(time: event.time, lastFiring: last) else { continue }
            store.recordFiring(device: event.device, campaign: campaign.id, at: event.time)
            firedIDs.append(campaign.id)
            pending.append(record(for: campaign, event: event, fireDate: fireDate))
        }
        if pending.count > 1 {
            pending.sort { ($0.fireDate, $0.campaign) < ($1.fireDate, $1.campaign) }
        }
        for record in pending { emit(record) }
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
        var okTitle: String?
        var cancelTitle: String?
        var categoryLanguage: String
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
