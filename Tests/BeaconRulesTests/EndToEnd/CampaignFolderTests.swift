import BeaconRules
import CampaignFiles
import Foundation
import Testing

/// `--campaigns` folders and the progress bar, as users meet them.
@Suite("Campaign folders and terminal output")
struct CampaignFolderTests {
    @Test func foldersAreReadRecursivelyInFileNameOrder() throws {
        let dir = Paths.temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/b-sub/inner", withIntermediateDirectories: true)
        func action(_ eid: String) -> Data { Data(#"{"eid":"\#(eid)","type":1,"trigger":1}"#.utf8) }
        _ = fm.createFile(atPath: dir + "/c.json", contents: action("c"))
        _ = fm.createFile(atPath: dir + "/a.json", contents: action("a"))
        _ = fm.createFile(atPath: dir + "/b-sub/z.json", contents: action("bz"))
        _ = fm.createFile(atPath: dir + "/b-sub/inner/y.json", contents: action("biy"))
        _ = fm.createFile(atPath: dir + "/B.json", contents: action("B"))
        _ = fm.createFile(atPath: dir + "/notes.txt", contents: Data("not a campaign".utf8))
        _ = fm.createFile(atPath: dir + "/.hidden.json", contents: Data("{broken".utf8))
        let catalog = CampaignFileReader().load(paths: [dir])
        #expect(catalog.errors.isEmpty)
        #expect(catalog.campaigns.map(\.eid) == ["B", "a", "biy", "bz", "c"])
    }

    @Test func progressBarIsDrawnOnlyOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let dir = Paths.temporaryDirectory()
        let command = "'\(Paths.binary)' replay Tests/Fixtures/museum-day.jsonl > '\(dir)/out' "
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, dir + "/typescript"]
        process.currentDirectoryURL = Paths.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let terminal = Paths.read(dir + "/typescript")
        #expect(terminal.contains("lines"))
        #expect(terminal.contains("100%"))
        #expect(Paths.read(dir + "/out") == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }
}
