package import BeaconRules

/// A campaign a device reports it has shown (a Sensorberg SDK's history `actions`): kept as a
/// firing of the campaign for the device at `time`, so that suppression and once-only hold
/// here as they held on the phone.
package struct ShownAction: Sendable, Hashable {
    package var device: String
    package var campaign: CampaignID
    package var time: Timestamp

    package init(device: String, campaign: CampaignID, time: Timestamp) {
        self.device = device
        self.campaign = campaign
        self.time = time
    }
}
