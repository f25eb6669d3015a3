/// Where the engine keeps, per (device, campaign), the event time of the last record it emitted.
/// Suppression intervals, `suppressionTime: 0` and `sendOnlyOnce` are all decided from it.
public protocol SuppressionStore {
    /// The event time of the last firing of `campaign` for `device`, nil if it never fired.
    func lastFiring(device: String, campaign: CampaignID) -> Timestamp?
    /// Remembers that `campaign` fired for `device` at event time `time`.
    mutating func recordFiring(device: String, campaign: CampaignID, at time: Timestamp)
}

/// One remembered firing, as stores list and persist them.
public struct FiringEntry: Sendable, Equatable {
    public var device: String
    public var campaign: CampaignID
    public var time: Timestamp

    public init(device: String, campaign: CampaignID, time: Timestamp) {
        self.device = device
        self.campaign = campaign
        self.time = time
    }
}
