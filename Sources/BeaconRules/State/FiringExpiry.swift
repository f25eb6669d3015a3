/// Which suppression state can no longer change a decision (SPEC section 5): what a store's
/// `forgetFirings` drops.
///
/// An entry (device, campaign, time) is expired when its campaign is not loaded, when no loaded
/// action of the campaign keeps state (no suppression), or when `time` plus the campaign's longest
/// suppression interval is at or before `cutoff` (the newest event time seen, less the lateness
/// allowed). Once-only state (`sendOnlyOnce`, `suppressionTime: 0`) never expires while its
/// campaign is loaded.
public struct FiringExpiry: Sendable {
    /// Per loaded campaign: how long (ms) after a firing its state can change a decision;
    /// `Int64.max` for once-only.
    public let horizons: [CampaignID: Int64]
    /// Event time (ms): an interval that ended at or before it has passed.
    public var cutoff: Int64
    /// Changes whenever `horizons` does, so stores can cache what they derive from it per key.
    public let generation: Int

    /// Expiry for these horizons (ms a campaign's firing can still matter), entries ending at or
    /// before `cutoff` expired.
    public init(horizons: [CampaignID: Int64], cutoff: Int64 = Int64.min, generation: Int) {
        self.horizons = horizons
        self.cutoff = cutoff
        self.generation = generation
    }

    /// The horizons of a campaign set: the longest interval of each eid's actions, once-only wins.
    public init(campaigns: CampaignSet, generation: Int) {
        var horizons: [CampaignID: Int64] = [:]
        for campaign in campaigns.campaigns {
            var horizon: Int64 = 0
            if campaign.sendOnlyOnce || campaign.suppression == .once {
                horizon = .max
            } else if case .interval(let ms) = campaign.suppression {
                horizon = max(0, ms)
            }
            horizons[campaign.id] = max(horizons[campaign.id] ?? 0, horizon)
        }
        self.init(horizons: horizons, generation: generation)
    }

    /// Whether state of `campaign` kept with this horizon from event time `time` has expired.
    @inline(__always)
    public func isExpired(horizon: Int64?, time: Int64) -> Bool {
        guard let horizon else { return true }
        if horizon == .max { return false }
        let (end, overflow) = time.addingReportingOverflow(horizon)
        return !overflow && end <= cutoff
    }

    /// The event time at which state kept with this horizon from `time` expires: `isExpired` is
    /// `end <= cutoff`. `Int64.min` for no horizon (expired at once), `Int64.max` for never (once-only,
    /// or past the largest time; an end of exactly `Int64.max` ms reads as never too, where
    /// `isExpired` would drop it at a cutoff of `Int64.max` itself, which no event time reaches).
    @inline(__always)
    static func end(horizon: Int64?, time: Int64) -> Int64 {
        guard let horizon else { return .min }
        if horizon == .max { return .max }
        let (end, overflow) = time.addingReportingOverflow(horizon)
        return overflow ? .max : end
    }

    /// Whether a firing of `campaign` at `time` can no longer change a decision (a campaign not
    /// loaded: its horizon is nil, and it expires).
    public func isExpired(campaign: CampaignID, time: Int64) -> Bool {
        isExpired(horizon: horizons[campaign], time: time)
    }
}
