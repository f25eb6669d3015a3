@testable import BeaconRules
import Testing

/// How a campaign set indexes and ranks campaigns at load: by pid, by eid order, by campaign id.
@Suite("Campaign index")
struct CampaignIndexTests {
    static let pidA = "7367672374000000ffff0000ffff00070733107331"
    static let pidB = "7367672374000000ffff0000ffff00070733107332"

    func set(_ actions: [String]) throws -> CampaignSet {
        CampaignSet(try Harness.campaigns("[" + actions.joined(separator: ",") + "]"))
    }

    func action(_ eid: String, beacons: [String]) -> String {
        #"{"eid":"\#(eid)","type":1,"beacons":[\#(beacons.map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }

    @Test func candidatesAreInLoadOrderAndACampaignListingAPidTwiceCountsOnce() throws {
        let campaigns = try set([
            action("c0", beacons: [Self.pidA, Self.pidB, Self.pidA]),
            action("c1", beacons: [Self.pidB]),
            action("c2", beacons: [Self.pidA, "7367-6723-7400-0000-FFFF-0000-FFFF-0007-0733107331"]),
            action("c3", beacons: ["7367672374000000ffff0000ffff0007"]),
        ])
        var list: [Int32] = []
        campaigns.candidates(for: BeaconID(pid: Self.pidA)!, into: &list)
        #expect(list == [0, 2, 3])
        campaigns.candidates(for: BeaconID(pid: Self.pidB)!, into: &list)
        #expect(list == [0, 1, 3])
        campaigns.candidates(for: BeaconID(pid: "00000000000000000000000000000000" + "00001" + "00001")!, into: &list)
        #expect(list.isEmpty)
    }

    /// Ranks follow the eids' UTF-8 byte order, equal eids share one: eids here differ only after
    /// their eighth byte, are prefixes of one another, or hold bytes above ASCII.
    @Test func ranksFollowByteOrderOfTheEids() {
        let eids = ["abcdefgh2", "abcdefgh", "abcdefgh10", "abc", "abcdefgh2", "é", "e\u{301}", "Z", "abcdefgh\u{0}", "", "abcdefgh2"]
        let order = eids.indices.sorted { eids[$0].utf8.lexicographicallyPrecedes(eids[$1].utf8) }
        var expected = [Int32](repeating: 0, count: eids.count)
        for (position, index) in order.enumerated() {
            let previous = position > 0 ? order[position - 1] : nil
            expected[index] = previous.map { eids[$0] == eids[index] } == true ? expected[previous!] : Int32(position)
        }
        #expect(CampaignSet.ranks(of: eids) == expected)
        #expect(CampaignSet.ranks(of: eids)[0] == CampaignSet.ranks(of: eids)[4])
    }

    /// Eids with the same campaign id share a state slot: ASCII ids folded alike, and ids Swift
    /// compares as equal though their bytes differ (canonical equivalence).
    @Test(arguments: [
        (["ABC-def", "x", "abcdef"], [Int32(0), 1, 0]),
        (["caf\\u00e9", "cafe\\u0301", "cafe"], [Int32(0), 0, 1]),
    ])
    func actionsSharingACampaignIDShareTheirStateSlot(eids: [String], slots: [Int32]) throws {
        let campaigns = try set(eids.map { action($0, beacons: [Self.pidA]) })
        #expect(campaigns.rules.map(\.idSlot) == slots)
        #expect(campaigns.campaignIDs.count == Set(slots).count)
    }

    @Test func campaignIDsFoldCaseAndDropDashesForAnyText() {
        #expect(CampaignID(eid: "AB-c-D").canonical == "abcd")
        #expect(CampaignID(eid: "").canonical == "")
        #expect(CampaignID(eid: "Ä-B").canonical == "äb")
    }
}
