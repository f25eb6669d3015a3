public import BeaconRules

/// Why one campaign fires for an event or not: `beaconrules explain`'s line for it.
public struct Explanation: Sendable {
    /// The campaign decided on.
    public var campaign: Campaign
    /// Whether it fires, or the first rule that stopped it.
    public var verdict: Verdict
    /// The language the record would be in, when it fires.
    public var language: String?

    /// One campaign's line of an explanation.
    public init(campaign: Campaign, verdict: Verdict, language: String?) {
        self.campaign = campaign
        self.verdict = verdict
        self.language = language
    }

    /// Every campaign's verdict on `event`, in load order. The state is read, never changed.
    /// Package only: an embedder asks `RulesService.explain(_:)`, which owns the engine.
    package static func all<Store: SuppressionStore>(_ engine: RulesEngine<Store>, _ event: BeaconEvent) -> [Explanation] {
        engine.explain(event).map { campaign, verdict in
            var language: String?
            if case .fires(let fireDate) = verdict {
                language = engine.record(for: campaign, event: event, fireDate: fireDate).language
            }
            return Explanation(campaign: campaign, verdict: verdict, language: language)
        }
    }

    /// `EID: fired (fireDate ..., language ...)`, or the first rule that stopped it.
    public var text: String {
        if case .fires(let fireDate) = verdict {
            let languageText = campaign.actionType == .silent ? "silent" : "language \(language ?? "none")"
            return "\(campaign.eid): fired (fireDate \(fireDate), \(languageText))"
        }
        return "\(campaign.eid): \(verdict.explanation)"
    }

    /// One JSON object: `campaign`, `file`, `line`, `verdict`, what the verdict depends on, `message`.
    public var json: String {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"campaign\":"); w.string(campaign.eid)
        w.raw(",\"file\":"); w.string(campaign.origin.file)
        w.raw(",\"line\":"); w.integer(Int64(campaign.origin.line))
        w.raw(",\"verdict\":"); w.string(verdict.code)
        switch verdict {
        case .fires(let fireDate):
            w.raw(",\"fireDate\":"); w.string(fireDate.description)
            w.raw(",\"language\":"); w.optionalString(language)
        case .outsideTimeframes(let next):
            w.raw(",\"nextOpens\":"); w.optionalString(next?.description)
        case .suppressed(let until):
            w.raw(",\"until\":"); w.string(until.description)
        case .deliverAtPassed(let at):
            w.raw(",\"deliverAt\":"); w.string(at.description)
        case .triggerMismatch(let trigger):
            w.raw(",\"trigger\":"); w.string(trigger.name)
        case .beaconDoesNotMatch, .alreadySentOnce, .sharedEidFiredFirst, .waitsForDwell:
            break
        }
        w.raw(",\"message\":"); w.string(text.dropFirst(campaign.eid.count + 2).description)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
