/// Why a response was not taken: an unknown record id, a record of another device, a button the
/// notification does not have. The message says which and what was expected.
public struct ResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which rule the response broke, for a caller that answers each differently.
    public enum Kind: Sendable, Equatable {
        /// `notification` names no record this engine delivered (nor one in the saved state).
        case unknownRecord
        /// The record was delivered longer ago than the response window.
        case outsideResponseWindow
        /// The record was delivered to another device.
        case otherDevice
        /// `actionId` names no button of the record.
        case unknownAction
        /// The record's campaign is not loaded, so its buttons are unknown.
        case campaignNotLoaded
    }

    /// Which rule the response broke.
    public var kind: Kind
    /// What was wrong and what was expected, for a person.
    public var message: String

    /// An error of `kind` with its message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// What one response did.
public struct ResponseOutcome: Sendable, Equatable {
    /// False when the response only repeated what was already counted.
    public var counted: Bool
    /// What the click's handler emitted (empty for present, dismiss and repeated clicks).
    public var outputs: [ActionOutput]
    /// The action type of a click that no handler took (counted as unhandled in the funnel).
    public var unhandled: ActionKind?
}

extension RulesEngine {
    /// Takes a response (SPEC section 8) to a delivered record: counts its state once per
    /// notification (a click implies opened; a repeat counts nothing), and on the first click of a
    /// button runs the handler of the button's action type.
    public mutating func respond(to response: ResponseEvent) throws(ResponseError) -> ResponseOutcome {
        guard let entry = ledger.entryIndex(response.notification) else {
            if let fired = ledger.forgottenDelivery(DeliveryLedger.key(response.notification)) {
                throw tooLate(response, fired: fired)
            }
            throw ResponseError(.unknownRecord, "field `notification`: \"\(response.notification)\" is not the id of a notification record this engine delivered (nor one in the saved state); expected the `id` of a delivered record, CAMPAIGN:DEVICE:EVENT")
        }
        let e = ledger.entries[Int(entry)]
        if response.time.milliseconds > ledger.windowEnd(e.fired) { throw tooLate(response, fired: e.fired) }
        let eid = ledger.campaignNames[Int(e.campaign)]
        guard response.notification.hasPrefix(eid + ":" + response.device + ":") else {
            throw ResponseError(.otherDevice, "field `device`: record \"\(response.notification)\" was not delivered to device \"\(response.device)\"; expected the device the record names")
        }
        var outcome = ResponseOutcome(counted: false, outputs: [], unhandled: nil)
        switch response.action {
        case .present:
            outcome.counted = ledger.mark(entry, DeliveryLedger.presented)
            return outcome
        case .open:
            // Opened, not clicked (SPEC section 8): the user may open it and use none of its buttons.
            outcome.counted = ledger.mark(entry, DeliveryLedger.presented | DeliveryLedger.opened)
            return outcome
        case .dismiss:
            outcome.counted = ledger.mark(entry, DeliveryLedger.dismissed)
            return outcome
        case .click:
            break
        }
        guard let index = campaignIndex(for: e) else {
            throw ResponseError(.campaignNotLoaded, "field `notification`: campaign \"\(eid)\" of record \"\(response.notification)\" is not among the loaded campaigns, so its buttons are unknown; load the campaign the record came from")
        }
        let campaign = campaigns.campaigns[index]
        let actionId = response.isDefaultTap ? "default" : response.actionId!
        // The record as it was delivered: what its buttons run, and what a handler is given.
        let prefix = eid + ":" + response.device + ":"
        let event = BeaconEvent(
            id: String(response.notification.dropFirst(prefix.count)), device: response.device, kind: e.trigger,
            beacon: ledger.beacons[Int(e.beacon)], time: response.time, locale: ledger.locale(e.locale))
        let record = record(for: campaign, event: event, fireDate: response.time)
        guard let action = clickedAction(campaign, record: record, actionId: actionId) else {
            let ids = campaign.actions.categoryActions.isEmpty ? ["ok", "cancel"] : campaign.actions.categoryActions.map(\.id)
            throw ResponseError(.unknownAction, "field `actionId`: record \"\(response.notification)\" has no button \"\(actionId)\"; expected \(ids.map { "\"\($0)\"" }.joined(separator: ", ")), or no actionId for a tap on the notification")
        }
        guard let action else {
            // The Cancel button: the user dismissed the notification from it.
            outcome.counted = ledger.mark(entry, DeliveryLedger.dismissed)
            return outcome
        }
        if actionId == "default" {
            outcome.counted = ledger.mark(entry, DeliveryLedger.presented | DeliveryLedger.opened)
        } else {
            let newClick = ledger.markClick(entry, actionId: actionId)
            let newState = ledger.mark(entry, DeliveryLedger.presented | DeliveryLedger.opened | DeliveryLedger.clicked)
            outcome.counted = newClick || newState
        }
        var once = FNV1a()
        once.add(response.notification.utf8)
        once.add(CollectionOfOne(0))
        once.add(actionId.utf8)
        guard ledger.firstHandling(once.value, entry: entry) else { return outcome }
        guard let handler = actionRegistry.handler(for: action.kind) else {
            ledger.countUnhandled(.init(campaign: e.campaign, language: e.language, type: action.kind.name))
            outcome.unhandled = action.kind
            return outcome
        }
        if let outputs = handlerOutputs?[once.value] {
            outcome.outputs = outputs
        } else {
            outcome.outputs = handler(ActionInvocation(record: record, action: action, actionId: actionId, response: response))
            handlerOutputs?[once.value] = outcome.outputs
        }
        for case .schedule(let scheduled) in outcome.outputs {
            // A rescheduled record is the same notification: its responses count for this entry.
            ledger.alias(DeliveryLedger.key(scheduled.id), to: entry)
        }
        return outcome
    }

    /// A response later than the response window after its record's `fireDate` (SPEC section 8).
    func tooLate(_ response: ResponseEvent, fired: UInt32) -> ResponseError {
        let window = Retention.text(milliseconds: ledger.responseWindow)
        var fireDate: [UInt8] = []
        Timestamp(milliseconds: Int64(fired) * 1000).appendRFC3339(to: &fireDate)
        return ResponseError(.outsideResponseWindow, "field `notification`: record \"\(response.notification)\" was delivered longer ago than the response window (\(window)): it fired at \(String(decoding: fireDate, as: UTF8.self)), and responses are taken until \(window) after that; expected a response to a record delivered within the window")
    }

    /// The action a click runs: nil inside when it is the Cancel button (a dismissal), nil outside
    /// when the notification has no such button.
    func clickedAction(_ campaign: Campaign, record: NotificationRecord, actionId: String) -> NotificationAction?? {
        if actionId == "default" { return .some(record.tapAction) }
        if !campaign.actions.categoryActions.isEmpty {
            guard let button = campaign.actions.categoryActions.first(where: { $0.id == actionId }) else { return nil }
            return .some(button.action)
        }
        switch actionId {
        case "ok":
            return .some(record.okAction)
        case "cancel":
            return .some(nil)
        default:
            return nil
        }
    }

    /// The campaign a ledger entry came from: the action that fired in this run, or the first
    /// loaded action of its eid for entries from a saved ledger.
    func campaignIndex(for e: DeliveryLedger.Entry) -> Int? {
        let id = ledger.campaignIDs[Int(e.campaign)]
        if e.rule >= 0, Int(e.rule) < campaigns.campaigns.count, campaigns.campaigns[Int(e.rule)].id == id { return Int(e.rule) }
        return campaigns.campaigns.firstIndex { $0.id == id }
    }

    /// Remembers the notification records of the current event (silent records are never shown,
    /// so they get no responses).
    ///
    /// On the hot path: per event one locale and one beacon lookup, per record a hash of
    /// `DEVICE:EVENT` continued from the campaign's cached `EID:` state and one insert; the campaign
    /// itself is read only the first time it fires (per locale and trigger for the language).
    /// The ledger's language of a record (the localized block's key, else the language of the
    /// button titles), remembered for its campaign index `rule`, ledger `locale` slot and `trigger`.
    @discardableResult
    mutating func noteLanguage(of record: NotificationRecord, deviceLocale: String?, rule: Int, locale: UInt32, trigger: EventKind) -> UInt32 {
        noteLanguage(named: record.language ?? chooser.defaultLanguage(tag: deviceLocale), rule: rule, locale: locale, trigger: trigger)
    }

    /// `noteLanguage(of:...)` with the language already known.
    @discardableResult
    mutating func noteLanguage(named name: String, rule: Int, locale: UInt32, trigger: EventKind) -> UInt32 {
        let language = ledger.languageSlot(name)
        ledger.prepareRuleTables(rules: campaigns.campaigns.count)
        ledger.setLanguage(language, rule: rule, locale: locale, trigger: trigger)
        return language
    }

    /// `noteDeliveries` on the hot path: the record id's `:DEVICE:EVENT` taken from the event's
    /// rendered head when it is there unescaped (`RecordJoiner.unescapedIDClosing`).
    @inline(__always)
    mutating func noteDeliveries(_ event: InPlaceEvent, locale: UInt32, head: (bytes: [UInt8], range: Range<Int>)?) {
        let cachedTailsNoted = caches.tails.languagesEpoch != 0 && caches.tails.languagesEpoch == ledger.languageEpoch
        if let head {
            head.bytes.withUnsafeBufferPointer { noteDeliveries(event, locale: locale, idSuffix: UnsafeBufferPointer(rebasing: $0[head.range]), cachedTailsNoted: cachedTailsNoted) }
        } else {
            noteDeliveries(event, locale: locale, cachedTailsNoted: cachedTailsNoted)
        }
    }

    /// `idSuffix`: `:DEVICE:EVENT` as bytes when the caller has them (the hot path), else the
    /// key is hashed from the event's strings.
    /// `cachedTailsNoted`: the language of each firing with a cached tail is known to be in the
    /// ledger already (`TailCache.languagesEpoch`).
    mutating func noteDeliveries(_ event: InPlaceEvent, locale knownLocale: UInt32? = nil, idSuffix: UnsafeBufferPointer<UInt8>? = nil, cachedTailsNoted: Bool = false) {
        guard scratch.pending.hasNotification else { return }
        let locale = knownLocale ?? ledger.localeSlot(event.localeText)
        // Through the engine's beacon number when it has one: no hashing of the beacon per event.
        let beacon = scratch.beacon >= 0 ? ledger.beaconSlot(engineNumber: scratch.beacon, event.beacon) : ledger.beaconSlot(event.beacon)
        ledger.prepareRuleTables(rules: campaigns.campaigns.count)
        for i in 0..<scratch.pending.count {
            let firing = scratch.pending[i]
            let index = Int(firing.index)
            if firing.isSilent { continue }
            // What every record of the rule shares, noted the first time: its campaign slot and
            // the hash of `EID:`, then its language per locale and trigger.
            if ledger.ruleSlots[index] == .max {
                let campaign = campaigns.campaigns[index]
                ledger.ruleSlots[index] = ledger.campaignSlot(campaign.id, eid: campaign.eid)
                var h = FNV1a()
                h.add(campaign.eid.utf8)
                ledger.ruleHashes[index] = h.value
            }
            if !(cachedTailsNoted && firing.tail != nil) && ledger.language(rule: index, locale: locale, trigger: event.kind) == nil {
                noteLanguage(of: record(for: campaigns.campaigns[index], event: event.event, fireDate: event.time), deviceLocale: event.localeText, rule: index, locale: locale, trigger: event.kind)
            }
            var h = FNV1a(value: ledger.ruleHashes[index])
            if let idSuffix {
                h.add(bytes: idSuffix)
            } else {
                h.add(byte: 0x3A)
                h.add(bytes: event.device)
                h.add(byte: 0x3A)
                h.add(bytes: event.id)
            }
            ledger.deliverLater(key: h.value, rule: Int32(index), locale: locale, beacon: beacon, trigger: event.kind, fireDate: firing.fireDate)
        }
    }
}
