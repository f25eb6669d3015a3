import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import Foundation

/// `beaconrules presence-score TRACE... --log LOG.csv`: the stays the presence layer derives from a
/// trace, scored against a written movement log (`PresenceScore`).
struct PresenceScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-score",
        abstract: "Score the stays derived from a trace against a written movement log.",
        discussion: "Replays the trace through the presence layer as `replay` does (same presence options, no campaigns) and prints, per subject, the log beside the derived stays, then the figures (docs/presence.md)."
    )

    @Argument(help: ArgumentHelp("Trace files (events or recorded scans); `-` reads stdin.", valueName: "trace"))
    var traces: [String]

    @Option(name: .customLong("log"), help: ArgumentHelp("The movement log: CSV of subject,room,from,to (docs/presence.md).", valueName: "file"))
    var logFile: String

    @OptionGroup var presenceOptions: PresenceOptions

    func run() throws {
        let log: MovementLog
        do {
            guard let data = FileManager.default.contents(atPath: logFile) else { throw PresenceError("\(logFile): cannot read the movement log") }
            log = try MovementLog(csv: [UInt8](data), file: logFile)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        let campaigns = CampaignSet([])
        var settings = try presenceOptions.settings(campaigns: campaigns)
        settings.flickerControl = true
        var engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: LocaleTable(), store: InMemorySuppressionStore()), settings: settings)
        engine.keepsLog = true
        var writer = JSONWriter(capacity: 1 << 12)
        let rejected = try PresenceTraces(format: presenceOptions.inputFormat).forEachInput(of: traces) { input in
            try engine.add(input, into: &writer)
            writer.bytes.removeAll(keepingCapacity: true)
        }
        engine.finish(into: &writer)
        let score = PresenceScore(log: log, stays: PresenceScore.stays(from: engine.log, subject: settings.exclusiveZones ?? (presenceOptions.inputFormat == .starksm64 ? .beacon : .device)))
        print(score.report(), terminator: "")
        if rejected > 0 { throw ExitCode(1) }
    }
}
