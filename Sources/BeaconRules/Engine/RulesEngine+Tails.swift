/// Record tails: rendered from a campaign once per (campaign, trigger, chosen language or locale)
/// and cached, and the records they are rendered from.
extension RulesEngine {
    /// Gives each of `scratch.pending`'s firings its cached tail, caching what the cache lacks first, so
    /// that joining only reads; returns the tails not cached (too long, or `slot` nil: past the
    /// locale limit), by firing; nil when every tail is cached (the usual case: no dictionary is
    /// made per event).
    @inline(__always)
    mutating func attachTails(_ event: InPlaceEvent, slot: UInt32?, ledgerLocale: UInt32) -> [Int: [UInt8]]? {
        var uncached: [Int: [UInt8]]?
        for i in 0..<scratch.pending.count {
            let firing = scratch.pending[i]
            if let slot {
                if let tail = caches.tails.tail(rule: Int(firing.index), locale: slot, trigger: event.kind) {
                    scratch.pending.setTail(tail, at: i)
                } else {
                    let (tail, line) = missingTail(index: Int(firing.index), slot: slot, ledgerLocale: ledgerLocale, event: event)
                    if let tail { scratch.pending.setTail(tail, at: i) } else { uncached = uncached ?? [:]; uncached![i] = line }
                }
            } else {
                uncached = uncached ?? [:]
                uncached![i] = renderTail(index: Int(firing.index), event: event.tailEvent).line
            }
        }
        return uncached
    }

    /// The tail of (campaign `index`, locale slot `slot`, the event's trigger), which the cache
    /// lacks: the same tail as another locale's that chose the same language of the campaign
    /// (`tailShare`), else rendered. Cached unless too long, then returned as bytes.
    /// The ledger is told the record's language either way.
    mutating func missingTail(index: Int, slot: UInt32, ledgerLocale: UInt32, event: InPlaceEvent) -> (cached: StableByteArena.Reference?, line: [UInt8]) {
        let share = tailShare(index: index, event: event)
        if let share, caches.tails.holds(share: share.key) {
            if ledger.isEnabled { noteLanguage(named: share.language, rule: index, locale: ledgerLocale, trigger: event.kind) }
            return (caches.tails.reuse(share: share.key, rule: index, locale: slot, trigger: event.kind, ledgerEpoch: ledgerEpoch), [])
        }
        let (tail, record) = renderTail(index: index, event: event.tailEvent)
        if ledger.isEnabled {
            // The ledger asks for the same record's language right after: it is known now.
            noteLanguage(of: record, deviceLocale: event.localeText, rule: index, locale: ledgerLocale, trigger: event.kind)
        }
        guard tail.count < TailCache.longest else { return (nil, tail) }
        return (caches.tails.store(tail, rule: index, locale: slot, trigger: event.kind, share: share?.key, ledgerEpoch: ledgerEpoch), [])
    }

    /// The ledger's language epoch as the tail cache notes it (0: the ledger is off), read after
    /// the record's language is noted (noting may start a new epoch).
    private var ledgerEpoch: UInt64 { ledger.isEnabled ? ledger.languageEpoch : 0 }

    /// What a tail of campaign `index` for this event is the same for other device locales by,
    /// and the record's language: a silent record's tail has no localized part (one per
    /// trigger), a notification's depends on which of the campaign's languages the locale
    /// chose (one per trigger and chosen language). Nil when no campaign language is chosen: the
    /// tail then takes default button titles for the device's own locale.
    private func tailShare(index: Int, event: InPlaceEvent) -> (key: UInt64, language: String)? {
        let locale = event.localeText
        return campaigns.campaigns.withUnsafeBufferPointer { list -> (key: UInt64, language: String)? in
            let campaign = list.baseAddress! + index
            let base = UInt64(index) << 32 | (event.kind == .enter ? 0 : 1 << 31)
            if campaign.pointee.actionType == .silent {
                return (base | 0xFFFF, chooser.defaultLanguage(tag: locale))
            }
            guard let block = campaign.pointee.block(for: event.kind), let chosen = chooser.choose(in: block, deviceTag: locale),
                  let position = block.languages.firstIndex(of: chosen), position < 0xFFFF else { return nil }
            return (base | UInt64(position), chosen.key)
        }
    }

    /// The record's tail with its line's newline, and the record it was rendered from. A tail depends
    /// only on the campaign, the trigger and the device's locale (`InPlaceEvent.tailEvent`).
    mutating func renderTail(index: Int, event: BeaconEvent) -> (line: [UInt8], record: NotificationRecord) {
        let record = record(for: campaigns.campaigns[index], event: event, fireDate: event.time)
        // A campaign's payload is the same in each of its tails (triggers, languages): written once.
        let payloadJSON = caches.tails.payload(campaign: index) {
            var payload = JSONWriter(capacity: 256)
            payload.value(record.payload)
            return payload.bytes
        }
        var w = JSONWriter(capacity: 1024)
        record.appendTail(to: &w, payloadJSON: payloadJSON)
        w.bytes.append(0x0A)
        return (w.bytes, record)
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
        var subtitle: String?
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
            subtitle = chosen.strings["subtitle"]
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
            categoryLanguage = chooser.defaultLanguage(tag: event.locale)
        }
        var category = NotificationCategory(
            id: campaign.eid + "." + event.kind.name + "." + categoryLanguage,
            actions: [
                CategoryAction(id: "ok", title: okTitle, behavior: confirm.rawValue, foreground: foreground),
                CategoryAction(id: "cancel", title: cancelTitle, behavior: "dismiss", foreground: false),
            ])
        var record = NotificationRecord(
            kind: .notification, id: id, campaign: campaign.eid, device: event.device, event: event.id,
            trigger: event.kind, beacon: event.beacon, fireDate: fireDate, actionType: campaign.actionType,
            language: language, title: title, body: body, url: url, category: category, payload: payload)
        record.subtitle = subtitle
        if !campaign.actions.isEmpty {
            campaign.actions.apply(to: &category)
            record.category = category
            record.actions = campaign.actions
        }
        return record
    }
}
