@testable import BeaconRules
import Testing

/// `CandidateIndex`: each beacon numbered once, with its candidates listed by trigger in memory
/// read through a pointer.
@Suite("CandidateIndex: candidate lists read through a pointer")
struct CandidateIndexTests {
    static let uuid = "7367672374000000ffff0000ffff0007"

    /// The pid of the UUID's beacon (`major`, `minor`).
    static func pid(_ major: Int, _ minor: Int) -> String {
        func five(_ n: Int) -> String { String(repeating: "0", count: 5 - String(n).count) + String(n) }
        return uuid + five(major) + five(minor)
    }

    /// Exact, venue-wide and exit-only campaigns on many beacons, so that the lists grow past
    /// their first memory.
    func campaigns() throws -> CampaignSet {
        var actions: [String] = []
        for i in 0..<60 {
            let exact = Self.pid(i % 7, i)
            let trigger = i % 3 == 0 ? #""trigger":2,"# : ""
            actions.append(#"{"eid":"e\#(i)","type":1,\#(trigger)"beacons":["\#(exact)"]}"#)
        }
        actions.append(#"{"eid":"venue","type":1,"beacons":["\#(Self.uuid)"]}"#)
        return CampaignSet(try Harness.campaigns("[" + actions.joined(separator: ",") + "]"))
    }

    /// What each beacon's run names in `lists` is its candidates, those an enter can fire, then
    /// those an exit can fire, as `CampaignSet.candidates` gives them; a beacon seen again has
    /// the same number and run.
    @Test func listsHoldEachBeaconsCandidates() throws {
        let campaigns = try campaigns()
        let table = RuleTable(campaigns, keys: [UInt32](repeating: 0, count: campaigns.campaignIDs.count))
        var index = CandidateIndex()
        var runs: [BeaconID: (Int, UInt64)] = [:]
        for round in 0..<2 {
            for i in 0..<3000 {
                let beacon = BeaconID(pid: Self.pid(i % 7, i % 1500))!
                let numbered = index.run(beacon, campaigns: campaigns, rows: table.rows)
                let found = try #require(numbered)
                if let seen = runs[beacon] {
                    #expect(seen.0 == found.0 && seen.1 == found.1)
                } else {
                    #expect(round == 0)
                    runs[beacon] = found
                }
                var expected: [Int32] = []
                campaigns.candidates(for: beacon, into: &expected)
                let lists = index.lists
                for kind in [EventKind.enter, .exit] {
                    let listed = CandidateIndex.range(found.1, kind).map { lists[$0] }
                    let bit: UInt8 = kind == .enter ? 1 : 2
                    #expect(listed == expected.filter { table.rows[Int($0)].triggerMask & bit != 0 })
                }
            }
        }
        #expect(index.count == runs.count)
    }

    /// A copy of the index (an engine copied) keeps its lists when the original numbers more
    /// beacons, and the other way round.
    @Test func copiesAreValues() throws {
        let campaigns = try campaigns()
        let table = RuleTable(campaigns, keys: [UInt32](repeating: 0, count: campaigns.campaignIDs.count))
        var original = CandidateIndex()
        let first = BeaconID(pid: Self.pid(1, 1))!
        _ = original.run(first, campaigns: campaigns, rows: table.rows)
        var copy = original
        let before = Array(copy.lists)
        for i in 2..<300 { _ = original.run(BeaconID(pid: Self.pid(i % 7, i))!, campaigns: campaigns, rows: table.rows) }
        #expect(Array(copy.lists) == before)
        _ = copy.run(BeaconID(pid: Self.pid(3, 3))!, campaigns: campaigns, rows: table.rows)
        #expect(Array(original.lists.prefix(before.count)) == before)
        #expect(copy.count == 2)
    }
}
