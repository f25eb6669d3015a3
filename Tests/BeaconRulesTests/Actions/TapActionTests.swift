@testable import BeaconRules
import Testing

/// What a tap on the notification's body does (SPEC section 3): the campaign's own
/// `notificationAction`, else the URL, else opening the app; said by the record, sent by the APNs
/// payload, and run by a click without `actionId`.
struct TapActionTests {
    static let beacon = "7367672374000000ffff0000ffff00070733107331"

    static func campaign(_ extra: String, type: Int = 1, confirm: String = "open") -> String {
        """
        {"eid": "c", "trigger": 1, "type": \(type), "beacons": ["\(beacon)"],
         "content": {"subject": "Hello", "body": "Welcome"\(extra),
                     "payload": {"onEnter": {"confirmAction": "\(confirm)", "en": {"title": "Hello", "message": "Welcome"}}}}}
        """
    }

    /// The one record of an enter, as JSON.
    static func record(_ json: String) throws -> (engine: RulesEngine<InMemorySuppressionStore>, record: NotificationRecord, line: JSONValue) {
        var engine = try Harness.engine(json)
        let records = engine.process(Harness.event(beacon: beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en"))
        try #require(records.count == 1)
        let line = try JSONParser.parse(records[0].jsonLine)
        return (engine, records[0], line)
    }

    @Test func aCampaignWithAURLOpensItOnATapEvenWhenItsOKButtonShares() throws {
        let (_, record, line) = try Self.record(Self.campaign(#", "url": "https://museum.example/share""#, confirm: "share"))
        #expect(line["notificationAction"]?["type"]?.stringValue == "url")
        #expect(line["notificationAction"]?["value"]?.stringValue == "https://museum.example/share")
        #expect(record.okAction.kind == .share)
        let apns = try JSONParser.parse(record.apnsLine)
        #expect(apns["notification-action"]?["type"]?.stringValue == "url")
        #expect(apns["notification-action"]?["value"]?.stringValue == "https://museum.example/share")
    }

    @Test func withoutAURLATapOpensTheApp() throws {
        let (_, _, line) = try Self.record(Self.campaign(""))
        #expect(line["notificationAction"]?["type"]?.stringValue == "openApp")
        #expect(line["notificationAction"]?["value"] == nil)
    }

    @Test func theCampaignsOwnNotificationActionWins() throws {
        let json = Self.campaign(#", "url": "https://museum.example/""#)
            .replacingFirst(#""trigger": 1,"#, with: #""trigger": 1, "notificationAction": {"type": "dial", "value": "+4930123"},"#)
        let (_, _, line) = try Self.record(json)
        #expect(line["notificationAction"]?["type"]?.stringValue == "dial")
        #expect(line["notificationAction"]?["value"]?.stringValue == "+4930123")
    }

    @Test func aSilentRecordHasNoTapAction() throws {
        let (_, _, line) = try Self.record(Self.campaign(#", "url": "https://museum.example/""#, type: 4))
        #expect(line["kind"]?.stringValue == "silent")
        #expect(line["notificationAction"] == nil)
    }

    /// A click without `actionId` runs the tap's action: the URL's handler (a follow-up record),
    /// not opening the app, which the record would contradict.
    @Test func aTapRunsTheRecordsTapAction() throws {
        var (engine, record, _) = try Self.record(Self.campaign(#", "url": "https://museum.example/share""#, confirm: "share"))
        let seen = Box()
        engine.actionRegistry.register(.url) { invocation in seen.actions.append(invocation.action); return [] }
        engine.actionRegistry.register(.share) { invocation in seen.actions.append(invocation.action); return [] }
        let tap = ResponseEvent(id: "r", device: "d1", notification: record.id, action: .click, actionId: nil, time: Timestamp(milliseconds: 1_778_428_860_000))
        _ = try engine.respond(to: tap)
        #expect(seen.actions == [record.tapAction])
        #expect(seen.actions.first?.kind == .url)
    }

    final class Box: @unchecked Sendable { var actions: [NotificationAction] = [] }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
