@testable import BeaconRules
import Testing

/// The decoder finds an action's fields in one pass; these say it reads them as `JSONValue.member` would.
@Suite("Action fields")
struct ActionFieldsTests {
    @Test func aLaterDuplicateWinsAndNullMeansAbsent() throws {
        let campaigns = try Harness.campaigns(#"""
        [{"eid":"a","type":1,"trigger":1,"trigger":2,"delay":5,"delay":null,"name":"first","name":"second"}]
        """#)
        let campaign = try #require(campaigns.first)
        #expect(campaign.trigger == .exit)
        #expect(campaign.delayMilliseconds == 0)
        #expect(campaign.name == "second")
    }

    @Test func fieldsAreFoundWhateverTheOrderAndUnknownNamesOfTheSameLengthAreIgnored() throws {
        let campaigns = try Harness.campaigns(#"""
        [{"dwelt":9,"eix":"no","beacons":[],"typo":3,"sendOnlyOnce":true,"type":4,"eid":"b","suppressionTime":0}]
        """#)
        let campaign = try #require(campaigns.first)
        #expect(campaign.eid == "b")
        #expect(campaign.actionType == .silent)
        #expect(campaign.sendOnlyOnce)
        #expect(campaign.suppression == .once)
        #expect(campaign.dwellMilliseconds == 0)
    }

    @Test func memberLookupMatchesJSONValueForKnownAndUnknownNames() throws {
        let value = try JSONParser.parse(#"{"eid":"a","content":1,"eid":"b","other":2,"other":3}"#)
        let fields = ActionFields(try #require(value.objectMembers))
        for key in ["eid", "content", "other", "name", "missing", ""] {
            #expect(fields.member(key) == value.member(key), "\(key)")
        }
    }

    @Test func blankEidsAreStillRefused() {
        var decoder = CampaignDecoder(file: "f.json")
        _ = decoder.decode(document: try! JSONParser.parse(#"[{"eid":" \t ","type":1}]"#))
        #expect(decoder.diagnostics.map(\.message) == ["`[0].eid`: expected a non-empty string, found a string"])
    }
}
