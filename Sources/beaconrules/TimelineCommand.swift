import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import BeaconRulesTimeline
import Foundation

/// `beaconrules timeline TRACE... -o timeline.svg`: presence per device and beacon as bars, with
/// the records marked, drawn from a replay of the trace through the presence layer.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Draw presence per device and beacon (bars) with the notifications marked, as SVG.",
        discussion: "Replays the trace exactly as `replay` does (same options), then draws what happened."
    )

    @Argument(help: ArgumentHelp("Trace files (events or recorded scans); `-` reads stdin.", valueName: "trace"))
    var traces: [String]

    @OptionGroup var catalog: CatalogOptions

    @OptionGroup var presenceOptions: PresenceOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the SVG.", valueName: "file"))
    var output: String = "timeline.svg"

    func run() throws {
        let (campaigns, locales) = try catalog.load { _ in }
        let settings = try presenceOptions.settings(campaigns: campaigns)
        var rejected = 0
        let timeline = try Timeline.replaying(
            title: traces.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "), campaigns: campaigns, locales: locales,
            settings: settings
        ) { add in
            rejected = try PresenceTraces(format: presenceOptions.inputFormat).forEachInput(of: traces) { input in try add(input) }
        }
        let svg = timeline.svg()
        guard FileManager.default.createFile(atPath: output, contents: Data(svg.utf8)) else {
            StandardError.write("beaconrules: \(output): cannot write the picture\n")
            throw ExitCode(1)
        }
        let stays = timeline.rows.reduce(0) { $0 + $1.stays.count }
        let marks = timeline.rows.reduce(0) { $0 + $1.marks.count }
        let subjects = timeline.subjects.isEmpty ? "" : "\(timeline.subjects.count) \(timeline.subjects.count == 1 ? "subject" : "subjects") in \(Set(timeline.subjects.flatMap { $0.stays.map(\.room) }).count) rooms, "
        StandardError.write("timeline: \(subjects)\(timeline.rows.count) rows, \(stays) stays, \(marks) records -> \(output)\n")
        if rejected > 0 { throw ExitCode(1) }
    }
}
