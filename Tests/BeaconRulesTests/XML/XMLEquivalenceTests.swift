import BeaconRules
import CampaignFiles
import Foundation
import Testing

/// A campaign set in XML gives exactly the records of the same set in JSON (SPEC section 6).
@Suite struct XMLEquivalenceTests {
    static let jsonSet = Paths.repo("Campaigns/museum")
    static let xmlSet = Paths.fixture("xml/museum")

    @Test func xmlTwinGivesTheSameRecordsByteForByte() throws {
        let fromJSON = try XMLSupport.records(trace: "museum-day.jsonl", paths: [Self.jsonSet])
        let fromXML = try XMLSupport.records(trace: "museum-day.jsonl", paths: [Self.xmlSet])
        let jsonLines = fromJSON.split(separator: "\n"), xmlLines = fromXML.split(separator: "\n")
        #expect(jsonLines.count == 39)
        #expect(jsonLines.count == xmlLines.count)
        for (json, xml) in zip(jsonLines, xmlLines) { #expect(Array(json.utf8) == Array(xml.utf8)) }
        // And both are the recorded golden output, so neither form drifted.
        #expect(fromXML == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }

    /// The broken trace is not valid UTF-8 throughout, so it goes through the real binary as bytes.
    @Test(arguments: ["museum-day", "museum-broken"])
    func theRealBinaryGivesTheSameRecordsAndErrorsForBothForms(trace: String) throws {
        let events = "Tests/Fixtures/\(trace).jsonl"
        let json = try CommandRunner.run(["replay", events, "--campaigns", Self.jsonSet])
        let xml = try CommandRunner.run(["replay", events, "--campaigns", Self.xmlSet])
        #expect(json.status == xml.status)
        #expect(Array(xml.stdout.utf8) == Array(json.stdout.utf8))
        #expect(xml.stdout == Paths.read(Paths.fixture("\(trace).records.jsonl")))
        #expect(xml.stderr == json.stderr)
    }

    @Test func importThenLoadTheJSONGivesTheSameRecords() throws {
        let out = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try CommandRunner.run(["import", Self.xmlSet, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(written == ["01-visit.json", "02-shop.json", "03-visit-counter.json"])
        // Loaded as plain JSON: no XML reader involved.
        let records = try XMLSupport.records(trace: "museum-day.jsonl", paths: [out])
        #expect(records == Paths.read(Paths.fixture("museum-day.records.jsonl")))
        #expect(try Harness.engine(paths: [out]).campaigns.count == 7)
    }

    @Test func importedCampaignsAreTheXMLCampaignsFieldForField() throws {
        let xml = XMLSupport.reader.load(paths: [Self.xmlSet]).campaigns
        let layout = CampaignLayoutFile.layout(for: xml)
        var decoder = CampaignDecoder(file: "imported.json")
        let again = decoder.decode(document: try JSONParser.parse(CampaignLayoutFile.text(layout)))
        #expect(decoder.diagnostics.isEmpty)
        #expect(again.count == xml.count)
        for (a, b) in zip(xml, again) {
            #expect(a.eid == b.eid && a.trigger == b.trigger && a.actionType == b.actionType && a.beacons == b.beacons)
            #expect(a.timeframes == b.timeframes && a.suppression == b.suppression && a.sendOnlyOnce == b.sendOnlyOnce)
            #expect(a.delayMilliseconds == b.delayMilliseconds && a.deliverAt == b.deliverAt && a.onEnter == b.onEnter && a.onExit == b.onExit)
            #expect(a.content.payload.map { $0.sameContent(as: b.content.payload ?? .null) } ?? (b.content.payload == nil))
        }
    }

    @Test func jsonCampaignsStillGiveTheGoldenRecords() throws {
        #expect(try XMLSupport.records(trace: "museum-day.jsonl", paths: [Self.jsonSet]) == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }
}
