@testable import BeaconRules
import Testing

/// One test per matching rule of SPEC section 2.
@Suite("Matching rules")
struct MatchingRuleTests {
    let pid = "7367672374000000ffff0000ffff00070733107331"
    let otherMinor = "7367672374000000ffff0000ffff00070733107332"

    func action(_ fields: String) -> String {
        #"{"eid":"c1","type":1,"content":{"subject":"S","body":"B"},"beacons":["7367672374000000ffff0000ffff00070733107331"],"# + fields + "}"
    }

    @Test func exactPidMatchesOnlyThatBeacon() throws {
        var engine = try Harness.engine(action(#""trigger":1"#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).count == 1)
        #expect(engine.process(Harness.event(beacon: otherMinor, at: "2016-05-10T16:00:00Z")).isEmpty)
    }

    @Test func uuidOnlyEntryMatchesEveryMajorAndMinor() throws {
        var engine = try Harness.engine(#"{"eid":"c1","type":4,"trigger":3,"beacons":["73676723-7400-0000-FFFF-0000FFFF0007"]}"#)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "a")).count == 1)
        #expect(engine.process(Harness.event(beacon: "7367672374000000ffff0000ffff00076553565535", at: "2016-05-10T16:00:00Z", id: "b")).count == 1)
        #expect(engine.process(Harness.event(beacon: "7367672374000000ffff0000ffff00080733107331", at: "2016-05-10T16:00:00Z", id: "c")).isEmpty)
    }

    @Test func geofenceEntriesLoadButNeverMatch() throws {
        let campaigns = try Harness.campaigns(#"{"eid":"g","type":1,"trigger":3,"beacons":["u33dc0cfsss0z1"]}"#)
        #expect(campaigns[0].beacons == [.geofence("u33dc0cfsss0z1")])
        var engine = try Harness.engine(#"{"eid":"g","type":1,"trigger":3,"beacons":["u33dc0cfsss0z1"]}"#)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).isEmpty)
    }

    @Test func pidEntriesAreComparedCaseInsensitivelyWithDashesIgnored() throws {
        var engine = try Harness.engine(#"{"eid":"c1","type":1,"trigger":1,"beacons":["73676723-7400-0000-FFFF-0000FFFF00070733107331"]}"#)
        #expect(engine.process(Harness.event(beacon: pid.uppercased(), at: "2016-05-10T16:00:00Z")).count == 1)
    }

    @Test(arguments: [
        (#""trigger":1"#, true, false), (#""trigger":2"#, false, true), (#""trigger":3"#, true, true),
        (#""trigger":"enter""#, true, false), (#""trigger":"exit""#, false, true), (#""trigger":"enterExit""#, true, true),
    ])
    func triggerSelectsEnterExitOrBoth(trigger: String, onEnter: Bool, onExit: Bool) throws {
        var engine = try Harness.engine(action(trigger))
        #expect(!engine.process(Harness.event(.enter, beacon: pid, at: "2016-05-10T16:00:00Z", id: "a")).isEmpty == onEnter)
        #expect(!engine.process(Harness.event(.exit, beacon: pid, at: "2016-05-10T16:00:00Z", id: "b")).isEmpty == onExit)
    }

    @Test func timeframeStartIsInclusiveAndEndExclusive() throws {
        let frames = #""trigger":1,"timeframes":[{"start":"2016-05-10T12:00:00Z","end":"2016-05-10T13:00:00Z"}]"#
        var engine = try Harness.engine(action(frames))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T11:59:59.999Z", device: "a")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T12:00:00Z", device: "b")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T12:59:59.999Z", device: "c")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T13:00:00Z", device: "d")).isEmpty)
    }

    @Test func timeframeBoundsMayBeNullOrMissing() throws {
        let frames = #""trigger":1,"timeframes":[{"start":null,"end":"1969-01-01T00:00:00Z"},{"start":"1971-01-01T00:00:00Z"}]"#
        var engine = try Harness.engine(action(frames))
        #expect(engine.process(Harness.event(beacon: pid, at: "1900-01-01T00:00:00Z", device: "a")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "1970-06-01T00:00:00Z", device: "b")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2100-01-01T00:00:00Z", device: "c")).count == 1)
    }

    @Test func timeOfDayOnlyBoundIsAbsentWithAWarning() throws {
        var decoder = CampaignDecoder(file: "f.json")
        let campaigns = decoder.decode(document: try JSONParser.parse(action(#""trigger":1,"timeframes":[{"start":"14:34:22"}]"#)))
        #expect(campaigns[0].timeframes == [Timeframe(start: nil, end: nil)])
        #expect(decoder.diagnostics.count == 1)
        #expect(decoder.diagnostics[0].severity == .warning)
        #expect(decoder.diagnostics[0].message.contains("has no date"))
    }

    @Test func warningsNeverDropACampaignAndAnErrorDropsOnlyItsOwnAction() throws {
        var actions = (0..<2_000).map { #"{"eid":"w\#($0)","type":1,"trigger":1,"timeframes":[{"start":"14:34:22"}]}"# }
        actions.insert(#"{"eid":"broken","type":1,"trigger":9}"#, at: 1_000)
        var decoder = CampaignDecoder(file: "many.json")
        let campaigns = decoder.decode(document: try JSONParser.parse("[" + actions.joined(separator: ",") + "]"))
        #expect(campaigns.count == 2_000)
        #expect(!campaigns.contains { $0.eid == "broken" })
        #expect(decoder.diagnostics.filter { $0.severity == .warning }.count == 2_000)
        #expect(decoder.diagnostics.filter { $0.severity == .error }.map(\.message) == ["`[1000].trigger`: expected 1 (enter), 2 (exit) or 3 (both), found 9"])
    }

    /// Numbers too large for milliseconds in 64 bits are a diagnostic, not a crash.
    @Test(arguments: ["99999999999999999999", "1e400", "1e12"])
    func hugeSuppressionTimeIsAnErrorNotACrash(value: String) throws {
        var decoder = CampaignDecoder(file: "f.json")
        let campaigns = decoder.decode(document: try JSONParser.parse(action(#""trigger":1,"suppressionTime":\#(value)"#)))
        #expect(campaigns.isEmpty)
        #expect(decoder.diagnostics.map(\.message) == ["`suppressionTime`: expected at most 999999999999 seconds (use 0 for once per device), found \(value)"])
    }

    @Test func positiveSuppressionTimeBlocksUntilTheIntervalPasses() throws {
        var engine = try Harness.engine(action(#""trigger":3,"suppressionTime":900"#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(.exit, beacon: pid, at: "2016-05-10T16:14:59.999Z", id: "2")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:15:00Z", id: "3")).count == 1)
        // Another device has its own state.
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:01:00Z", device: "other", id: "4")).count == 1)
    }

    @Test func zeroSuppressionTimeMeansOncePerDeviceEver() throws {
        var engine = try Harness.engine(action(#""trigger":1,"suppressionTime":0"#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2030-01-01T00:00:00Z", id: "2")).isEmpty)
    }

    @Test(arguments: [#""suppressionTime":-1"#, #""supressionTime":-1"#, #""name":"no suppression field""#])
    func minusOneOrAbsentMeansNoSuppression(fields: String) throws {
        var engine = try Harness.engine(action(#""trigger":1,"# + fields))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "2")).count == 1)
    }

    @Test func misspelledSupressionTimeIsReadWhenTheCorrectOneIsAbsent() throws {
        var engine = try Harness.engine(action(#""trigger":1,"supressionTime":60"#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:30Z", id: "2")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:01:00Z", id: "3")).count == 1)
    }

    @Test func sendOnlyOnceFiresAtMostOncePerDevice() throws {
        var engine = try Harness.engine(action(#""trigger":3,"sendOnlyOnce":true,"suppressionTime":-1"#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(.exit, beacon: pid, at: "2016-05-11T16:00:00Z", id: "2")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", device: "d-2", id: "3")).count == 1)
    }

    @Test func delaySetsFireDateAfterTheEvent() throws {
        var engine = try Harness.engine(action(#""trigger":1,"delay":120"#))
        let records = engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z"))
        #expect(records.map(\.fireDate.description) == ["2016-05-10T16:02:00Z"])
    }

    @Test func deliverAtFixesFireDateAndLaterEventsGetNothing() throws {
        var engine = try Harness.engine(action(#""trigger":1,"deliverAt":"2016-05-10T18:00:00.000+0200""#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T15:00:00Z", device: "a")).map(\.fireDate.description) == ["2016-05-10T16:00:00Z"])
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", device: "b")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00.001Z", device: "c")).isEmpty)
    }

    @Test func delayWinsOverDeliverAt() throws {
        var engine = try Harness.engine(action(#""trigger":1,"delay":60,"deliverAt":"2016-05-10T10:00:00Z""#))
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).map(\.fireDate.description) == ["2016-05-10T16:01:00Z"])
    }

    @Test(arguments: [(1, "notification"), (2, "website"), (3, "inApp")])
    func typesOneToThreeAreNotificationsWithTheirActionType(type: Int, name: String) throws {
        var engine = try Harness.engine(#"{"eid":"c1","trigger":1,"type":\#(type),"beacons":["\#(pid)"]}"#)
        let record = try #require(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).first)
        #expect(record.kind == .notification)
        #expect(record.actionType.name == name)
        #expect(record.category != nil)
    }

    @Test func typeFourIsASilentRecordWithoutTitleBodyOrCategory() throws {
        var engine = try Harness.engine(#"{"eid":"c1","trigger":1,"type":4,"beacons":["\#(pid)"]}"#)
        let record = try #require(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).first)
        #expect(record.kind == .silent)
        #expect(record.category == nil)
        #expect(!record.jsonLine.contains("\"title\""))
        #expect(!record.jsonLine.contains("\"category\""))
    }

    @Test func typeStringIsReadWhenTypeIsAbsent() throws {
        let campaigns = try Harness.campaigns(#"[{"eid":"a","typeString":"website"},{"eid":"b","typeString":"function"},{"eid":"c","typeString":"silent"}]"#)
        #expect(campaigns.map(\.actionType) == [.website, .inApp, .silent])
    }

    @Test func instantActionsRideAlongWithEveryEventWhateverBeaconAndTrigger() throws {
        var engine = try Harness.engine(#"{"actions":[],"instantActions":[{"eid":"i","type":3,"content":{"subject":"hi"}}]}"#)
        #expect(engine.process(Harness.event(.enter, beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).map(\.campaign) == ["i"])
        #expect(engine.process(Harness.event(.exit, beacon: otherMinor, at: "2016-05-10T16:00:00Z", id: "2")).map(\.campaign) == ["i"])
    }

    @Test func instantActionsKeepTheirOwnTimeframesAndSuppression() throws {
        var engine = try Harness.engine(#"{"actions":[],"instantActions":[{"eid":"i","type":3,"suppressionTime":60,"timeframes":[{"start":"2016-05-10T00:00:00Z"}]}]}"#)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-09T16:00:00Z", id: "1")).isEmpty)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "2")).count == 1)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:30Z", id: "3")).isEmpty)
    }

    @Test func actionsSharingAnEidAreOneCampaignAndTheFirstThatFiresWins() throws {
        let json = #"[{"eid":"same","type":1,"trigger":1,"beacons":["\#(pid)"],"timeframes":[{"end":"2000-01-01T00:00:00Z"}],"content":{"subject":"first"}},"# +
            #"{"eid":"SA-ME","type":1,"trigger":1,"beacons":["\#(pid)"],"content":{"subject":"second"}},"# +
            #"{"eid":"same","type":1,"trigger":1,"beacons":["\#(pid)"],"content":{"subject":"third"}}]"#
        var engine = try Harness.engine(json)
        let records = engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z"))
        #expect(records.map(\.title) == ["second"])
        #expect(records.map(\.campaign) == ["SA-ME"])
    }

    @Test func stateIsKeptPerEidAcrossAllBeaconsOfTheAction() throws {
        var engine = try Harness.engine(#"{"eid":"c1","type":1,"trigger":1,"suppressionTime":0,"beacons":["\#(pid)","\#(otherMinor)"]}"#)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "1")).count == 1)
        #expect(engine.process(Harness.event(beacon: otherMinor, at: "2016-05-10T17:00:00Z", id: "2")).isEmpty)
    }

    @Test func recordsOfOneEventAreOrderedByFireDateThenCampaign() throws {
        let json = #"[{"eid":"b-late","type":1,"trigger":1,"delay":60,"beacons":["\#(pid)"]},"# +
            #"{"eid":"c","type":1,"trigger":1,"beacons":["\#(pid)"]},{"eid":"a","type":1,"trigger":1,"beacons":["\#(pid)"]}]"#
        var engine = try Harness.engine(json)
        #expect(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).map(\.campaign) == ["a", "c", "b-late"])
    }

    @Test func recordIdIsCampaignDeviceEvent() throws {
        var engine = try Harness.engine(action(#""trigger":1"#))
        let record = try #require(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", device: "d-42", id: "e-1001")).first)
        #expect(record.id == "c1:d-42:e-1001")
    }

    @Test func emptyUrlBecomesNull() throws {
        var engine = try Harness.engine(#"{"eid":"c1","type":1,"trigger":1,"beacons":["\#(pid)"],"content":{"url":""}}"#)
        let record = try #require(engine.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z")).first)
        #expect(record.url == nil)
        #expect(record.jsonLine.contains(#""url":null"#))
    }

    @Test func explainNamesTheFirstRuleThatStopped() throws {
        var engine = try Harness.engine(action(#""trigger":2,"timeframes":[{"start":"2016-05-11T12:15:00Z"}]"#))
        let exitEvent = Harness.event(.exit, beacon: pid, at: "2016-05-10T16:00:00Z")
        #expect(engine.explain(exitEvent).map(\.verdict) == [.outsideTimeframes(nextOpens: .at("2016-05-11T12:15:00Z"))])
        #expect(engine.explain(Harness.event(.enter, beacon: pid, at: "2016-05-10T16:00:00Z")).map(\.verdict) == [.triggerMismatch(.exit)])
        #expect(engine.explain(Harness.event(.exit, beacon: otherMinor, at: "2016-05-10T16:00:00Z")).map(\.verdict) == [.beaconDoesNotMatch])
        _ = engine.process(Harness.event(.exit, beacon: pid, at: "2016-05-12T16:00:00Z"))
    }
}
