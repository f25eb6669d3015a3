/// Where the engine keeps, per (device, campaign), the event time of the last record it emitted.
/// Suppression intervals, `suppressionTime: 0` and `sendOnlyOnce` are all decided from it.
///
/// A store only has to implement the two string-keyed methods. A store that can do better on the
/// hot path also picks its own `DeviceKey` and `CampaignKey` (the in-memory store uses dense
/// integers), so the engine resolves the device once per event and each campaign once at load.
public protocol SuppressionStore {
    /// How the store names a device on the hot path: the id by default, a dense number in the
    /// in-memory store.
    associatedtype DeviceKey = String
    /// How the store names a campaign on the hot path, resolved once per load.
    associatedtype CampaignKey = CampaignID

    /// The event time of the last firing of `campaign` for `device`, nil if it never fired.
    func lastFiring(device: String, campaign: CampaignID) -> Timestamp?
    /// Remembers that `campaign` fired for `device` at event time `time`.
    mutating func recordFiring(device: String, campaign: CampaignID, at time: Timestamp)

    /// The key of a device the store already knows, nil when it has no state for it.
    func existingKey(device: String) -> DeviceKey?
    /// The key of a device, created when new.
    mutating func key(device: String) -> DeviceKey
    /// `existingKey(device:)` of the device id with these UTF-8 bytes (the hot path reads events
    /// in place, `InPlaceEvent`).
    func existingKey(deviceUTF8: UnsafeBufferPointer<UInt8>) -> DeviceKey?
    /// `key(device:)` of the device id with these UTF-8 bytes.
    mutating func key(deviceUTF8: UnsafeBufferPointer<UInt8>) -> DeviceKey
    /// The key of a campaign (asked once per campaign when the engine is built).
    mutating func key(campaign: CampaignID) -> CampaignKey
    /// `lastFiring(device:campaign:)` by keys.
    func lastFiring(_ device: DeviceKey, _ campaign: CampaignKey) -> Timestamp?
    /// `recordFiring(device:campaign:at:)` by keys.
    mutating func recordFiring(_ device: DeviceKey, _ campaign: CampaignKey, at time: Timestamp)
    /// `lastFiring` (in ms) of `device` for each of `campaigns`, into `times` (as many): the
    /// engine asks once per event for all its candidates, so a store reads the device's state once.
    func lastFirings(_ device: DeviceKey, _ campaigns: UnsafeBufferPointer<CampaignKey>, into times: UnsafeMutablePointer<Int64?>)
    /// Drops state that `expiry` says can no longer change a decision, looking at no more than
    /// `limit` entries (or devices, for a store that keeps a device's entries together: the
    /// in-memory one) in a sweep that goes on where the last call stopped, so that each call is a
    /// short step. Returns how many entries it dropped. A store may forget a device whose state
    /// is all gone and give its key to a new device: keys given out before the call are not used
    /// after it (the engine keeps a device's key for one batch; the pipeline forgets between).
    mutating func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int
}

extension SuppressionStore {
    /// A store that does not say how to forget keeps everything.
    public mutating func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int { 0 }

    /// One `lastFiring` per campaign.
    public func lastFirings(_ device: DeviceKey, _ campaigns: UnsafeBufferPointer<CampaignKey>, into times: UnsafeMutablePointer<Int64?>) {
        for (k, campaign) in campaigns.enumerated() { times[k] = lastFiring(device, campaign)?.milliseconds }
    }

    /// Through a `String` (stores whose keys are strings need one anyway).
    public func existingKey(deviceUTF8: UnsafeBufferPointer<UInt8>) -> DeviceKey? {
        existingKey(device: InPlaceEvent.text(deviceUTF8))
    }

    /// Through a `String`, as `existingKey(deviceUTF8:)`.
    public mutating func key(deviceUTF8: UnsafeBufferPointer<UInt8>) -> DeviceKey {
        key(device: InPlaceEvent.text(deviceUTF8))
    }
}

extension SuppressionStore where DeviceKey == String, CampaignKey == CampaignID {
    /// A store keyed by strings: the device id is its key.
    public func existingKey(device: String) -> String? { device }
    /// The device id is its key.
    public mutating func key(device: String) -> String { device }
    /// The campaign id is its key.
    public mutating func key(campaign: CampaignID) -> CampaignID { campaign }
    /// The string-keyed `lastFiring(device:campaign:)`.
    public func lastFiring(_ device: String, _ campaign: CampaignID) -> Timestamp? { lastFiring(device: device, campaign: campaign) }
    /// The string-keyed `recordFiring(device:campaign:at:)`.
    public mutating func recordFiring(_ device: String, _ campaign: CampaignID, at time: Timestamp) {
        recordFiring(device: device, campaign: campaign, at: time)
    }
}

/// One remembered firing, as stores list and persist them.
public struct FiringEntry: Sendable, Equatable {
    /// The device the campaign fired for.
    public var device: String
    /// The campaign that fired.
    public var campaign: CampaignID
    /// The event time of its last firing.
    public var time: Timestamp

    /// A firing of `campaign` for `device` at `time`.
    public init(device: String, campaign: CampaignID, time: Timestamp) {
        self.device = device
        self.campaign = campaign
        self.time = time
    }
}
