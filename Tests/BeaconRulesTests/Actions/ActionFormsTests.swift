import BeaconRules
import Foundation
import Testing

/// The extensions in the XML form give the same records as in JSON, and `lint` reports bad actions.
struct ActionFormsTests {
    static let b = ResponseTests.beacon
    static let json = """
        {"eid": "offer", "trigger": 1, "type": 1, "beacons": ["\(b)"],
         "content": {"subject": "Offer", "url": "https://shop.example.com",
                     "payload": {"onEnter": {"en": {"title": "Offer", "subtitle": "Today", "message": "10% off"}}}},
         "notificationAction": {"type": "url", "value": "https://shop.example.com/offer"},
         "categoryActions": [{"id": "later", "name": "Later", "type": "snooze", "value": 10, "destructive": false, "authentication": false, "foreground": false},
                             {"name": "Tour", "type": "calendar", "value": {"title": "Tour", "startDate": "2026-06-05T18:00:00Z", "endDate": "2026-06-05T19:00:00Z"}, "destructive": false, "authentication": false, "foreground": true},
                             {"name": "Coupon", "type": "coupon", "value": "X1", "destructive": false, "authentication": true, "foreground": true}],
         "categoryName": "offer-category", "mediaAttachment": "https://cdn.example.com/a.jpg"}
        """
    static let xml = XMLSupport.export("""
        <campaign eid="offer" trigger="enter" type="notification">
          <beacon>\(b)</beacon>
          <content><subject>Offer</subject><url>https://shop.example.com</url></content>
          <onEnter><strings lang="en" title="Offer" subtitle="Today" message="10% off"/></onEnter>
          <notificationAction type="url" value="https://shop.example.com/offer"/>
          <categoryAction id="later" name="Later" type="snooze" destructive="false" authentication="false" foreground="false"><value>10</value></categoryAction>
          <categoryAction name="Tour" type="calendar" destructive="false" authentication="false" foreground="true"><value>{"title": "Tour", "startDate": "2026-06-05T18:00:00Z", "endDate": "2026-06-05T19:00:00Z"}</value></categoryAction>
          <categoryAction name="Coupon" type="coupon" value="X1" destructive="false" authentication="true" foreground="true"/>
          <categoryName>offer-category</categoryName>
          <mediaAttachment>https://cdn.example.com/a.jpg</mediaAttachment>
        </campaign>
        """)

    @Test func xmlExtensionsGiveTheRecordsOfTheJSONCampaign() throws {
        let (campaigns, diagnostics) = XMLSupport.read(Self.xml)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        var fromXML = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        var fromJSON = try Harness.engine(Self.json)
        let event = Harness.event(beacon: Self.b, at: "2026-05-10T16:00:00Z", locale: "en")
        let xmlRecords = fromXML.process(event).map(\.jsonLine), jsonRecords = fromJSON.process(event).map(\.jsonLine)
        #expect(xmlRecords.count == 1)
        #expect(xmlRecords == jsonRecords)
        #expect(xmlRecords.first?.contains(#""subtitle":"Today""#) == true)
    }

    @Test func xmlSoundAndBadgeGiveTheAPNsPayloadOfTheJSONCampaign() throws {
        let (campaigns, diagnostics) = XMLSupport.read(XMLSupport.export("""
            <campaign eid="s" trigger="enter" type="notification" sound="chime.caf" badge="2">
              <beacon>\(Self.b)</beacon>
              <content><body>Hello</body></content>
            </campaign>
            """))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        var fromXML = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        var fromJSON = try Harness.engine(#"{"eid": "s", "trigger": 1, "type": 1, "beacons": ["\#(Self.b)"], "content": {"body": "Hello"}, "aps": {"sound": "chime.caf", "badge": 2}}"#)
        let event = Harness.event(beacon: Self.b, at: "2026-05-10T16:00:00Z", locale: "en")
        let xml = fromXML.process(event).map(\.apnsLine), json = fromJSON.process(event).map(\.apnsLine)
        #expect(xml == json)
        #expect(xml.first?.contains(#""sound":"chime.caf","badge":2"#) == true)
    }

    @Test func anInvalidXMLActionIsAnErrorAtItsXMLLine() {
        let errors = XMLSupport.errors(XMLSupport.export("""
            <campaign eid="c" type="notification">
              <beacon>\(Self.b)</beacon>
              <notificationAction type="passbook" value="http://example.com/p.pkpass"/>
            </campaign>
            """))
        #expect(errors.count == 1)
        #expect(errors.first?.location.line == 4)
        #expect(errors.first?.message.contains("https URL only") == true)
    }

    @Test func lintReportsInvalidActionsWithFileAndLine() throws {
        let dir = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
            [{"eid": "c", "type": 1, "beacons": ["\(Self.b)"],
              "categoryActions": [{"name": "Mine", "type": "coupon", "foreground": true}]}]
            """.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["lint", "--campaigns", dir + "/bad.json", "--now", "2026-01-01"])
        #expect(result.status == 1)
        #expect(result.stdout.contains(dir + "/bad.json:2:"))
        #expect(result.stdout.contains("action type \"coupon\" must give `destructive`"))
    }
}
