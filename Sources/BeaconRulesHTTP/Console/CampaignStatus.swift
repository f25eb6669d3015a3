package import BeaconRules

/// Where a campaign stands now, as the list shows it: `live` (it fires on a matching event now),
/// `scheduled` (a timeframe opens later), `ended` (every timeframe, or its `deliverAt`, is past),
/// `neverFires` (no beacon an event can match), `invalid` (lint finds an error).
package enum CampaignStatus: String, Sendable, CaseIterable {
    case live, scheduled, ended, neverFires = "never-fires", invalid

    /// How the page names it.
    package var label: String {
        switch self {
        case .live: "live"
        case .scheduled: "scheduled"
        case .ended: "ended"
        case .neverFires: "never fires"
        case .invalid: "invalid"
        }
    }

    /// The status of `entry` at `now`.
    package init(_ entry: ConsoleSnapshot.Entry, now: Timestamp) {
        let campaign = entry.campaign
        if entry.errors > 0 {
            self = .invalid
        } else if !campaign.beacons.contains(where: { if case .geofence = $0 { false } else { true } }) {
            self = .neverFires
        } else if let deliverAt = campaign.deliverAt, deliverAt < now {
            self = .ended
        } else if campaign.timeframes.isEmpty || campaign.timeframes.contains(where: { $0.contains(now) }) {
            self = .live
        } else if campaign.timeframes.contains(where: { ($0.end.map { now < $0 } ?? true) }) {
            self = .scheduled
        } else {
            self = .ended
        }
    }
}
