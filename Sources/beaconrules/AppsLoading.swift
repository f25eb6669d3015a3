import ArgumentParser
import BeaconRulesReplay
import BeaconRulesService
import CoreMetrics
import Logging

/// `--apps FILE` of `http` and `replay`: the file's apps, each its own service (its campaigns,
/// locales and state in memory, its metrics labelled `app`). Exit 2 with the file's problems, the
/// app that does not load, or `--campaigns` and `--state`, which the file replaces.
enum AppsLoading {
    static func load(
        file: String, catalog: CatalogOptions, state: StateOptions, presence: PresenceOptions, retention: RetentionOptions,
        logger: Logger, metrics: any MetricsFactory
    ) throws -> RulesApps {
        guard catalog.campaignPaths.isEmpty, state.state == nil else {
            StandardError.write("beaconrules: --apps gives each app its campaigns and locales, and keeps each app's state in memory: drop --campaigns, --locales and --state\n")
            throw ExitCode(2)
        }
        do {
            return try RulesApps(
                definitions: try AppsFile.read(path: file), presence: { try presence.settings(campaigns: $0) },
                retention: retention.retention, logger: logger, metrics: metrics)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
    }
}
