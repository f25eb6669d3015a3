@testable import BeaconRules
import BenchmarkWorkload
@testable import CampaignFiles
import BeaconRulesXML
import Foundation
import Testing

/// Campaign files are read, parsed and decoded on all cores, and their campaigns joined on all
/// cores: the catalog is exactly the one read file by file, in order, with the same diagnostics
/// in the same order.
@Suite("Campaign load on all cores")
struct ParallelLoadTests {
    /// Every campaign as text (all its fields), for comparing two catalogs: its eid, then the
    /// characters of its description sorted (dictionaries list their members in an order of
    /// their own, which differs from one instance to the next).
    static func described(_ catalog: CampaignCatalog) -> [String] {
        catalog.campaigns.map { $0.eid + ":" + String(String(reflecting: $0).sorted()) }
    }

    @Test func aFolderLoadsAsItsFilesOneByOne() throws {
        let directory = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for part in 0..<7 {
            var spec = WorkloadSpec(campaigns: 150 + part * 40, events: 0, devices: 1)
            spec.seed = UInt64(part) &* 7919
            _ = FileManager.default.createFile(atPath: directory + "/part-\(part).json", contents: Data(spec.campaignsJSON()))
        }
        // Files with diagnostics among them: a warning, errors, bad JSON, an XML file and an empty one.
        _ = FileManager.default.createFile(atPath: directory + "/part-2a.json", contents: Data(#"[{"eid":"w","trigger":1,"type":1,"beacons":["b9407f30f5f8466eaff925556b57fe6d0010000001"],"timeframes":[{"start":"2026-06-05T09:00:00"}],"content":{"subject":"S","body":"B"}}]"#.utf8))
        _ = FileManager.default.createFile(atPath: directory + "/part-3a.json", contents: Data(#"[{"eid":"bad","trigger":9,"type":1}]"#.utf8))
        _ = FileManager.default.createFile(atPath: directory + "/part-4a.json", contents: Data("[{\"eid\":".utf8))
        _ = FileManager.default.createFile(atPath: directory + "/part-5a.json", contents: Data("[]".utf8))
        try FileManager.default.copyItem(atPath: Paths.fixture("xml/mistakes.xml"), toPath: directory + "/part-6a.xml")
        let reader = CampaignFileReader(extraFormats: ["xml": XMLCampaignReader.read])
        let whole = reader.load(paths: [directory, directory + "/missing.json", directory + "/part-1.json"])
        var oneByOne = CampaignCatalog()
        for path in FileTree.files(under: directory) + [directory + "/missing.json", directory + "/part-1.json"] {
            let single = reader.load(paths: [path])
            oneByOne.campaigns += single.campaigns
            oneByOne.diagnostics += single.diagnostics
            oneByOne.files += single.files
        }
        #expect(whole.campaigns.count > 1_500)
        #expect(whole.diagnostics.count >= 4)
        #expect(whole.diagnostics == oneByOne.diagnostics)
        #expect(whole.files == oneByOne.files)
        let (a, b) = (Self.described(whole), Self.described(oneByOne))
        #expect(a.count == b.count)
        if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            let x = Array(a[i]), y = Array(b[i])
            let at = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
            Issue.record("campaign \(i) differs: \(String(x[max(0, at - 80)..<min(x.count, at + 80)])) against \(String(y[max(0, at - 80)..<min(y.count, at + 80)]))")
        }
    }

    /// A file that is one large array of actions is decoded in parts on all cores: the campaigns
    /// and the diagnostics (bad actions spread over the parts, each error with its line and
    /// index) are one decoder's, in order, however many parts.
    @Test(arguments: [2, 3, 7])
    func aLargeArrayDecodesInPartsAsInOne(parts: Int) throws {
        let beacon = "b9407f30f5f8466eaff925556b57fe6d0010000001"
        let actions = (0..<3_000).map { i in
            switch i {
            case _ where i % 397 == 5: #"{"eid":"bad\#(i)","trigger":9,"type":1}"#
            case _ where i % 211 == 7: #"{"eid":"w\#(i)","trigger":1,"type":1,"beacons":["\#(beacon)"],"timeframes":[{"start":"2026-06-05T09:00:00"}],"content":{"subject":"S","body":"B"}}"#
            default: #"{"eid":"c\#(i)","trigger":\#(1 + i % 3),"type":1,"beacons":["\#(beacon)"],"suppressionTime":\#(i % 5 * 60),"content":{"subject":"S\#(i)","body":"B"}}"#
            }
        }
        let text = "[\n" + actions.joined(separator: ",\n") + "\n]\n"
        guard case .array(let elements) = try JSONParser.parse(Array(text.utf8)) else {
            Issue.record("not an array")
            return
        }
        var one = CampaignDecoder(file: "big.json")
        var whole = CampaignCatalog()
        whole.campaigns = one.decode(document: .array(elements))
        whole.diagnostics = one.diagnostics
        let decoded = try #require(ActionArrayDecoding.decode(elements, file: "big.json", parts: parts))
        var inParts = CampaignCatalog()
        inParts.campaigns = decoded.campaigns
        inParts.diagnostics = decoded.diagnostics
        #expect(whole.diagnostics.count >= 8, "one error per bad action at least")
        #expect(inParts.diagnostics == whole.diagnostics)
        #expect(Self.described(inParts) == Self.described(whole))
        // And through the file reader, which takes this path for such a file.
        let read = CampaignFileReader.readJSON(path: "big.json", bytes: Array(text.utf8))
        #expect(read.diagnostics == whole.diagnostics)
        #expect(read.campaigns.count == whole.campaigns.count)
        // Too few actions to share out: one decoder.
        #expect(ActionArrayDecoding.decode(Array(elements.prefix(1_000)), file: "big.json", parts: parts) == nil)
    }
}
