public import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import Logging

/// `beaconrules report --state FILE|URL`: the response funnel per campaign and language, from the
/// delivery ledger that `replay --state` and `serve --state` keep (an SQLite file or PostgreSQL).
struct Report: MainThreadCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the notification funnel (delivered, presented, opened, clicked, dismissed) per campaign and language.",
        discussion: "Exit status: 0 printed; 2 bad usage, or a state (file or database) that does not open."
    )

    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var app: AppOption

    @Flag(name: .customLong("json"), help: "Print JSON instead of a table.")
    var json = false

    func runOnMain() async throws {
        guard let store = try await stateOptions.open(existing: true, app: app.id, logger: Logger(label: "beaconrules.report")) else {
            throw ValidationError("give --state: the state file (or database) that `replay --state` or `serve --state` kept")
        }
        defer { store.close() }
        let ledger: DeliveryLedger
        do { ledger = try await store.loadLedger() } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        let funnels = ledger.funnels()
        print(json ? FunnelReport.json(funnels) : FunnelReport.table(funnels), terminator: "")
    }
}

extension OutputFormat: ArgumentParser.ExpressibleByArgument {}
