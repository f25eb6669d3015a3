import Foundation
import Testing

/// The replay guide's synopsis names every option `replay --help` lists, so the guide cannot fall
/// behind the command (it once listed 4 of 10).
@Suite("Docs: synopses")
struct SynopsisTests {
    /// `--name` words of a text.
    static func options(in text: Substring) -> Set<String> {
        var found = Set<String>()
        var rest = text[...]
        while let start = rest.range(of: "--") {
            let name = rest[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if !name.isEmpty { found.insert("--" + name) }
            rest = rest[start.upperBound...]
        }
        return found
    }

    @Test func theReplayGuidesSynopsisNamesEveryOptionOfReplayHelp() throws {
        let help = try CommandRunner.run(["replay", "--help"])
        // Past 12 options the USAGE line is only `[<options>]`: the OPTIONS section names each,
        // at the start of its line (its help text may mention others).
        let section = try #require(help.stdout.components(separatedBy: "OPTIONS:").last)
        let heads = section.split(separator: "\n").filter { $0.hasPrefix("  -") }.map { $0.prefix { $0 != "<" && $0 != "(" } }
        let listed = Self.options(in: heads.joined(separator: " ")[...]).subtracting(["--help", "--version"])
        #expect(listed.count >= 12, "\(listed.sorted())")

        let guide = try String(contentsOfFile: Paths.repo("docs/replay.md"), encoding: .utf8)
        let synopsis = try #require(guide.components(separatedBy: "```").first { $0.contains("beaconrules replay [EVENTS") })
        let missing = listed.subtracting(Self.options(in: synopsis[...]))
        #expect(missing.isEmpty, "docs/replay.md's synopsis lacks \(missing.sorted())")
    }
}
