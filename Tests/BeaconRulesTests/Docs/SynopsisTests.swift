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
        // The options as the OPTIONS section lists them (the USAGE line folds them into
        // `[<options>]` once there are many): each line that starts with a flag.
        let optionLines = help.stdout.split(separator: "\n").drop { !$0.hasPrefix("OPTIONS:") }
            .map { $0.drop { $0 == " " } }.filter { $0.hasPrefix("-") }
        let listed = optionLines.reduce(into: Set<String>()) { $0.formUnion(Self.options(in: $1.prefix { $0 != " " })) }
            .subtracting(["--help", "--version"])
        #expect(listed.count >= 10, "\(help.stdout)")

        let guide = try String(contentsOfFile: Paths.repo("docs/replay.md"), encoding: .utf8)
        let synopsis = try #require(guide.components(separatedBy: "```").first { $0.contains("beaconrules replay [EVENTS") })
        let missing = listed.subtracting(Self.options(in: synopsis[...]))
        #expect(missing.isEmpty, "docs/replay.md's synopsis lacks \(missing.sorted())")
    }
}
