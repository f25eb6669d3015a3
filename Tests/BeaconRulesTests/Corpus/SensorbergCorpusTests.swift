@testable import BeaconRules
import CampaignFiles
import Foundation
import Testing

/// The real layouts of the Sensorberg SDKs (`Tests/Fixtures/sensorberg`) and what their tests expected.
@Suite("Sensorberg corpus")
struct SensorbergCorpusTests {
    static let layouts: [String] = {
        let root = Paths.sensorberg
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            if next.hasSuffix(".json") && next != "resolver/injectSyncResponse.json" { files.append(next) }
        }
        return files.sorted()
    }()

    @Test func corpusIsThere() {
        #expect(Self.layouts.count == 25)
    }

    @Test(arguments: layouts)
    func everyLayoutLoadsWithoutErrors(file: String) throws {
        let catalog = CampaignFileReader().load(paths: [Paths.sensorberg + "/" + file])
        #expect(catalog.errors.isEmpty, "\(catalog.errors)")
        #expect(!catalog.campaigns.isEmpty)
    }

    @Test func syncInputIsRefusedWithAClearError() throws {
        let catalog = CampaignFileReader().load(paths: [Paths.sensorberg + "/resolver/injectSyncResponse.json"])
        #expect(catalog.campaigns.isEmpty)
        #expect(catalog.errors.count == 1)
        let error = try #require(catalog.errors.first)
        #expect(error.message.contains("sync input"))
        #expect(error.location.file.hasSuffix("injectSyncResponse.json"))
    }

    @Test func wholeFolderLoadFailsOnlyOnTheSyncInput() {
        let catalog = CampaignFileReader().load(paths: [Paths.sensorberg])
        #expect(catalog.errors.count == 1)
        #expect(catalog.files.count == 26)
    }

    @Test func timeframesInCESTSelectTheSecondAction() throws {
        var engine = try Harness.engine(paths: [Paths.sensorberg + "/resolve_action_with_timeframes_in_cest.json"])
        let beacon = "7367672374000000ffff0000ffff00070733107331"
        #expect(engine.process(Harness.event(beacon: beacon, at: "2016-05-10T16:00:00Z", device: "a")).map(\.campaign) == ["80e73093310a49d9b43e4af6b47c19eb"])
        #expect(engine.process(Harness.event(beacon: beacon, at: "2016-05-11T14:00:00Z", device: "b")).map(\.campaign) == ["80e73093310a49d9b43e4af6b47c19eb"])
    }

    @Test func gmtTwinHasTheSameWindowsWrittenAtUTC() throws {
        let cest = try Harness.engine(paths: [Paths.sensorberg + "/resolve_action_with_timeframes_in_cest.json"]).campaigns.campaigns
        let gmt = try Harness.engine(paths: [Paths.sensorberg + "/resolve_action_with_timeframes_in_gmt.json"]).campaigns.campaigns
        #expect(cest.count == gmt.count)
        for (a, b) in zip(cest, gmt) {
            #expect(a.timeframes.count == b.timeframes.count)
            for (x, y) in zip(a.timeframes, b.timeframes) {
                #expect(y.start!.milliseconds - x.start!.milliseconds == 2 * 3_600_000)
            }
        }
    }

    @Test(arguments: [("1970-01-01T12:00:00Z", true), ("1967-12-31T12:00:00Z", true), ("1971-01-31T12:00:00Z", true), ("1970-02-28T12:00:00Z", false)])
    func nullTimeframeBoundsAreOpen(time: String, matches: Bool) throws {
        var engine = try Harness.engine(paths: [Paths.sensorberg + "/resolve_response_005.json"])
        let records = engine.process(Harness.event(beacon: "7367672374000000ffff0000ffff00010133701337", at: time))
        #expect(records.map(\.campaign) == (matches ? ["B763C589-3AC4-445B-97E3-5866557A91E5"] : []))
    }

    @Test func inAppLayoutYieldsThreeActionsWithTheDelayedOneLast() throws {
        var engine = try Harness.engine(paths: [Paths.sensorberg + "/resolve_response_inapp_action.json"])
        let records = engine.process(Harness.event(beacon: "7367672374000000ffff0000ffff00055936412297", at: "2016-05-10T16:00:00Z"))
        #expect(records.map { String($0.campaign.prefix(8)) } == ["af3750d2", "f4ee42db", "8a4dfe38"])
        #expect(records.last?.fireDate == .at("2016-05-10T16:01:00Z"))
    }

    @Test func silentLayoutRecordsOneSilentActionAndNothingToSee() throws {
        var engine = try Harness.engine(paths: [Paths.sensorberg + "/windows/mock_silent_layout.json"])
        let event = BeaconEvent(id: "e", device: "d", kind: .enter, beacon: BeaconID(uuid: ProximityUUID(text: "7367672374000000ffff0000ffff4321")!, major: 39178, minor: 30929), time: .at("2016-05-10T16:00:00Z"))
        let records = engine.process(event)
        #expect(records.count == 1)
        #expect(records.allSatisfy { $0.kind == .silent && $0.category == nil && $0.title == nil })
    }

    @Test func quirksAreRead() throws {
        let datetime = try Harness.engine(paths: [Paths.sensorberg + "/windows/datetime_layout.json"]).campaigns.campaigns
        // +0000, +0200, no zone (UTC), no millis, and a time-only bound treated as absent.
        #expect(datetime.map { $0.timeframes.first?.start?.description } == [
            "2015-04-16T12:34:22.627Z", "2015-04-16T12:34:22.627Z", "2015-04-16T14:34:22.627Z", "2015-04-16T14:34:22Z", nil,
        ])
        let enterExit = try Harness.engine(paths: [Paths.sensorberg + "/resolve_response_enter_exit_action.json"]).campaigns.campaigns
        #expect(enterExit[0].suppression == .interval(milliseconds: 900_000))
        let supressed = try Harness.engine(paths: [Paths.sensorberg + "/windows/response_supressionTime.json"]).campaigns.campaigns
        #expect(supressed[0].suppression == .interval(milliseconds: 30_000))
        let dashed = try Harness.engine(paths: [Paths.sensorberg + "/resolve_response_001.json"]).campaigns.campaigns
        #expect(dashed.map(\.eid).first == "D0F8A7-B0CF-446D-981B-F33077997FA8")
        #expect(dashed.first?.id.canonical == "d0f8a7b0cf446d981bf33077997fa8")
        #expect(dashed.filter(\.isInstant).map(\.eid) == ["03403819-3C8B-4B6A-AA15-A3E1F562EF1F"])
    }

    @Test func payloadOfAnyTypeIsKeptExactlyAsWritten() throws {
        let action = try Harness.engine(paths: [Paths.sensorberg + "/resolve_action_001.json"]).campaigns.campaigns[0]
        #expect(action.content.payload?.compactText == #"{"string":"string","true":true,"false":false,"null":null,"integer":123456,"double":1.2345,"long":9223372036854775806,"longWithE":9223372036E9,"doubleWithE":1.4E-4,"object":{"foo":"bar"},"array":["a","b",1,2,null]}"#)
        let silent = try Harness.engine(paths: [
            Paths.sensorberg + "/action_factory_payload_010_silent_campaign.json",
            Paths.sensorberg + "/action_factory_payload_010_silent_campaign_no_content_map.json",
            Paths.sensorberg + "/action_factory_payload_010_silent_campaign_null_map.json",
        ]).campaigns.campaigns
        #expect(silent.map(\.actionType) == [.silent, .silent, .silent])
        #expect(silent.map { $0.content.payload } == [nil, nil, .null])
        let strings = try Harness.engine(paths: [Paths.sensorberg + "/resolve_response_001.json"]).campaigns.campaigns
        #expect(strings[0].content.payload == .string("anything"))
    }

    @Test func crlfAndTrailingSpacesLoad() throws {
        let data = try #require(FileManager.default.contents(atPath: Paths.sensorberg + "/windows/mock_silent_layout.json"))
        #expect(data.contains(0x0D))
        #expect(try Harness.engine(paths: [Paths.sensorberg + "/windows/mock_silent_layout.json"]).campaigns.count == 1)
    }
}
