public import ArgumentParser
import BeaconRules
import BeaconRulesStore
import Foundation

/// `beaconrules report --state FILE`: the response funnel per campaign and language, from the
/// delivery ledger that `replay --state` keeps.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the notification funnel (delivered, presented, opened, clicked, dismissed) per campaign and language.",
        discussion: "Exit status: 0 printed; 2 bad usage, or a state file that does not open."
    )

    @Option(name: .customLong("state"), help: ArgumentHelp("The state file that `replay --state` wrote.", valueName: "file"))
    var stateFile: String

    @Flag(name: .customLong("json"), help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        // Opening creates a missing file: a typo must not leave an empty state behind.
        guard FileManager.default.fileExists(atPath: stateFile) else {
            StandardError.write("beaconrules: \(stateFile): no such state file; give the file that `replay --state` wrote\n")
            throw ExitCode(2)
        }
        let ledger: DeliveryLedger
        do {
            let store = try SQLiteStateStore(path: stateFile)
            defer { store.close() }
            ledger = try store.loadLedger()
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        let funnels = ledger.funnels()
        print(json ? FunnelReport.json(funnels) : FunnelReport.table(funnels), terminator: "")
    }
}

extension OutputFormat: ArgumentParser.ExpressibleByArgument {}
