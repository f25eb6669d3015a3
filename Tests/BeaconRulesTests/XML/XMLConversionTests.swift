@testable import BeaconRules
@testable import BeaconRulesXML
import Testing

/// How the XML form maps onto the Sensorberg action object (SPEC section 6).
@Suite struct XMLConversionTests {
    static func action(_ campaign: String) throws -> JSONValue {
        let (actions, problems) = XMLCampaignReader.convert(path: "t.xml", bytes: Array(XMLSupport.export(campaign).utf8))
        try #require(problems.isEmpty, "\(problems)")
        return try #require(actions.first).action
    }

    @Test func blocksBecomePayloadMembersWithBooleansAndStringsAsJSON() throws {
        let action = try Self.action("""
            <campaign eid="e1" trigger="enter" type="notification" suppressionTime="900" sendOnlyOnce="false" delay="0">
              <beacon>\(XMLSupport.pid1)</beacon>
              <content><payload>{"any": "JSON value", "n": 1.50}</payload></content>
              <onEnter confirmAction="open" actInForeground="true">
                <strings lang="de" title="Hallo!!" message="Willkommen!" okButtonTitle="Zur Website" cancelButtonTitle="Schließen"/>
              </onEnter>
              <onExit confirmAction="share" actInForeground="false"><strings lang="en" title="Bye"/></onExit>
            </campaign>
            """)
        #expect(action.compactText == #"{"eid":"e1","trigger":1,"type":1,"beacons":["b9407f30f5f8466eaff925556b57fe6d0010000001"],"suppressionTime":900,"sendOnlyOnce":false,"delay":0,"content":{"payload":{"any":"JSON value","n":1.50,"onEnter":{"confirmAction":"open","actInForeground":true,"de":{"title":"Hallo!!","message":"Willkommen!","okButtonTitle":"Zur Website","cancelButtonTitle":"Schließen"}},"onExit":{"confirmAction":"share","actInForeground":false,"en":{"title":"Bye"}}}}}"#)
    }

    @Test func blocksWithoutPayloadMakeOne() throws {
        let action = try Self.action("<campaign eid=\"e\" type=\"notification\"><onExit><strings lang=\"en\" title=\"Bye\"/></onExit></campaign>")
        #expect(action["content"]?.compactText == #"{"payload":{"onExit":{"en":{"title":"Bye"}}}}"#)
    }

    @Test func beaconAttributesBecomeAPidWithFiveDigitMajorAndMinor() throws {
        let action = try Self.action("<campaign eid=\"e\" type=\"silent\"><beacon uuid=\"73676723-7400-0000-FFFF-0000FFFF0001\" major=\"9572\" minor=\"896\"/></campaign>")
        #expect(action["beacons"]?.compactText == #"["7367672374000000ffff0000ffff00010957200896"]"#)
    }

    @Test func aUUIDAloneMatchesEveryBeaconOfIt() throws {
        let (campaigns, diagnostics) = XMLSupport.read(XMLSupport.export("<campaign eid=\"e\" type=\"silent\"><beacon uuid=\"B9407F30-F5F8-466E-AFF9-25556B57FE6D\"/></campaign>"))
        #expect(diagnostics.isEmpty)
        #expect(campaigns.first?.beacons == [.proximityUUID(ProximityUUID(text: "b9407f30f5f8466eaff925556b57fe6d")!)])
    }

    @Test func triggerAndTypeNamesMapToTheSensorbergCodes() throws {
        for (trigger, code) in [("enter", 1), ("exit", 2), ("enterExit", 3)] {
            #expect(try Self.action("<campaign eid=\"e\" trigger=\"\(trigger)\" type=\"silent\"/>")["trigger"] == .number(String(code)))
        }
        for (type, code) in [("notification", 1), ("website", 2), ("inApp", 3), ("silent", 4)] {
            #expect(try Self.action("<campaign eid=\"e\" type=\"\(type)\"/>")["type"] == .number(String(code)))
        }
    }

    @Test func cdataAndEntityReferencesGiveTheTextAsMeant() throws {
        let action = try Self.action("""
            <campaign eid="e" type="notification"><content><subject>Fish &amp; Chips &#x2764;</subject>
            <payload><![CDATA[{"html": "<b>bold</b> & more"}]]></payload></content></campaign>
            """)
        #expect(action["content"]?.compactText == #"{"subject":"Fish & Chips ❤","payload":{"html":"<b>bold</b> & more"}}"#)
    }

    @Test func decoderWarningsPointIntoTheXMLFile() {
        let (campaigns, diagnostics) = XMLSupport.read(XMLSupport.export("<campaign eid=\"e\" type=\"silent\">\n  <timeframe start=\"14:34:22\"/></campaign>"))
        #expect(campaigns.count == 1)
        #expect(diagnostics.map(\.description) == ["inline.xml:3:14: warning: `timeframes[0].start`: \"14:34:22\" has no date; the bound is treated as absent"])
    }

    @Test func payloadMembersKeepTheirPlaceInTheXMLFile() throws {
        let action = try Self.action("<campaign eid=\"e\" type=\"silent\"><content><payload>\n  {\"a\": 1}</payload></content></campaign>")
        let member = try #require(action["content"]?["payload"]?.member("a"))
        #expect((member.line, member.column) == (3, 4))
    }

    @Test func instantCampaignsRideAlongWithEveryEvent() {
        let (campaigns, _) = XMLSupport.read(XMLSupport.export("<campaign eid=\"e\" type=\"silent\" instant=\"true\"/>"))
        #expect(campaigns.first?.isInstant == true)
    }

    @Test func sourceMapFindsTagsAndAttributesPastCommentsCDATAAndQuotedAngles() {
        let text = "<?xml version=\"1.0\"?>\n<!-- <fake a=\"1\"> -->\n<r x='>' y=\"2\"><![CDATA[<no>]]>\n  <c é=\"1\"  z = \"3\"/></r>"
        let tags = XMLSourceMap(bytes: Array(text.utf8)).startTags()
        let map = XMLSourceMap(bytes: Array(text.utf8))
        #expect(tags.count == 2)
        #expect(tags.map { map.position(of: $0.offset) } == [TextPosition(line: 3, column: 1), TextPosition(line: 4, column: 3)])
        #expect(tags[0].attributes.map(\.name) == ["x", "y"])
        #expect(tags[1].attributes.map { map.position(of: $0.offset).column } == [6, 13])
    }
}
