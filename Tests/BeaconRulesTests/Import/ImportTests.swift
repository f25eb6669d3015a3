import BeaconRules
import Foundation
import Testing

/// `beaconrules import FILE... --out DIR`.
@Suite struct ImportTests {
    /// Runs `import INPUTS --out TMP` and hands the result and the folder to `check`, then removes it.
    func importing(_ inputs: [String], _ check: (CommandResult, String) throws -> Void) throws {
        let out = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        try check(try CommandRunner.run(["import"] + inputs + ["--out", out]), out)
    }

    @Test func importWritesOneLayoutPerFileAndSaysSo() throws {
        let out = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try CommandRunner.run(["import", "Tests/Fixtures/xml/museum/02-shop.xml", "Campaigns/museum/03-visit-counter.json", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Tests/Fixtures/xml/museum/02-shop.xml -> \(out)/02-shop.json (2 campaigns)
            Campaigns/museum/03-visit-counter.json -> \(out)/03-visit-counter.json (1 campaign)

            """)
        let layout = try JSONParser.parse(Paths.read(out + "/02-shop.json"))
        #expect(layout["accountProximityUUIDs"]?.compactText == #"["b9407f30f5f8466eaff925556b57fe6d"]"#)
        #expect(layout["actions"]?.arrayElements?.count == 2)
        #expect(layout["actions"]?.arrayElements?.first?.value["trigger"] == .number("1"))
        #expect(layout["instantActions"]?.compactText == "[]")
    }

    @Test func aSensorbergLayoutKeepsItsAccountUUIDsAndLoadsAgain() throws {
        let out = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let source = Paths.sensorberg + "/resolve_response_001.json"
        let result = try CommandRunner.run(["import", source, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let original = try JSONParser.parse(Paths.read(source))
        let written = try JSONParser.parse(Paths.read(out + "/resolve_response_001.json"))
        #expect(written["accountProximityUUIDs"].map { $0.sameContent(as: original["accountProximityUUIDs"]!) } == true)
        let before = try Harness.engine(paths: [source]).campaigns.campaigns.map(\.eid)
        let after = try Harness.engine(paths: [out]).campaigns.campaigns.map(\.eid)
        #expect(after == before)
    }

    @Test func nothingIsWrittenWhenAnInputDoesNotLoad() throws {
        try importing(["Tests/Fixtures/xml/museum/02-shop.xml", "Tests/Fixtures/xml/billion-laughs.xml"]) { result, out throws in
            #expect(result.status == 2)
            #expect(result.stderr.contains("billion-laughs.xml:2:1: error: a DOCTYPE is not allowed"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        }
    }

    @Test func theBackendSyncInputIsRefused() throws {
        try importing([Paths.sensorberg + "/resolver/injectSyncResponse.json"]) { result, out throws in
            #expect(result.status == 2)
            #expect(result.stderr.contains("not a campaign layout"))
        }
    }

    @Test func twoInputsForOneOutputAreRefused() throws {
        try importing(["Tests/Fixtures/xml/museum/02-shop.xml", "Campaigns/museum/02-shop.json"]) { result, out throws in
            #expect(result.status == 2)
            #expect(result.stderr.contains("would both be written to"))
        }
    }

    @Test func importNeedsInputsAndOut() throws {
        #expect(try CommandRunner.run(["import", "--out", "/tmp/x"]).status == 2)
        #expect(try CommandRunner.run(["import", "Tests/Fixtures/xml/museum"]).status == 2)
    }
}
