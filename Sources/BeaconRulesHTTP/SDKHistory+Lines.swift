import BeaconRules
package import BeaconRulesService

/// What a history becomes here (docs/SPEC.md section 9, docs/http.md "Sensorberg SDK apps"):
/// - each event, that installation's enter or exit, with the id `sdk:IID:PID:MS:TRIGGER`: sent
///   again (an SDK resends its history when a post failed) it is answered as before and changes
///   nothing, exactly once per (iid, pid, dt, trigger);
/// - each action, a firing of its campaign for the installation at its `dt` (a `FiringEntry`), so
///   that suppression and `sendOnlyOnce` hold here for what the phone already showed;
/// - each conversion of type 1 or 0, a response (SPEC section 8: `open`, `dismiss`) to the
///   record of its campaign made from the latest of the history's events at or before its `dt`
///   that the campaign answers; types -1 and -2 say nothing was shown, and are skipped.
/// Events are applied in time order (an SDK puts a failed post's history back after newer
/// entries), then the conversions.
package struct SDKHistoryLines: Sendable {
    /// The events' and the conversions' lines, in the order they are applied.
    package var lines: [String] = []
    /// How many of `lines` are events.
    package var events = 0
    /// The actions, as firings.
    package var shown: [FiringEntry] = []
    /// Conversions that became no response (types -1 and -2, or no record to answer).
    package var skippedConversions = 0

    /// The lines of `history` for the installation `device` (its `locale` for the records'
    /// language, when the request gives one), against the app's `campaigns`.
    package init(_ history: SDKHistory, device: String, locale: String?, campaigns: CampaignSet) {
        let events = history.events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        for event in events {
            var w = JSONWriter(capacity: 256)
            w.raw("{\"id\":"); w.string(Self.eventID(device: device, event))
            w.raw(",\"device\":"); w.string(device)
            w.raw(",\"type\":"); w.string(event.kind.name)
            w.raw(",\"beacon\":"); w.string(event.beacon.description)
            w.raw(",\"time\":"); w.integer(event.time.milliseconds)
            if let locale { w.raw(",\"locale\":"); w.string(locale) }
            w.raw("}")
            lines.append(String(decoding: w.bytes, as: UTF8.self))
        }
        self.events = lines.count
        shown = history.actions.map { FiringEntry(device: device, campaign: CampaignID(eid: $0.eid), time: $0.time) }
        let byID = Dictionary(campaigns.campaigns.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for conversion in history.conversions.sorted(by: { $0.time < $1.time }) {
            guard conversion.type >= 0, let campaign = byID[CampaignID(eid: conversion.action)],
                  let event = events.last(where: { event in
                      event.time <= conversion.time && campaign.trigger.matches(event.kind) && campaign.beacons.contains { $0.matches(event.beacon) }
                  })
            else {
                skippedConversions += 1
                continue
            }
            var w = JSONWriter(capacity: 256)
            w.raw("{\"id\":"); w.string("sdk:\(device):conversion:\(campaign.eid):\(conversion.time.milliseconds):\(conversion.type)")
            w.raw(",\"type\":\"response\",\"device\":"); w.string(device)
            w.raw(",\"notification\":"); w.string("\(campaign.eid):\(device):\(Self.eventID(device: device, event))")
            w.raw(",\"action\":"); w.string(conversion.type == 1 ? "open" : "dismiss")
            w.raw(",\"time\":"); w.integer(conversion.time.milliseconds)
            w.raw("}")
            lines.append(String(decoding: w.bytes, as: UTF8.self))
        }
    }

    /// `sdk:IID:PID:MS:TRIGGER`: the one id of an installation's transition.
    package static func eventID(device: String, _ event: SDKHistory.Event) -> String {
        "sdk:\(device):\(event.beacon):\(event.time.milliseconds):\(event.kind == .enter ? 1 : 2)"
    }
}
