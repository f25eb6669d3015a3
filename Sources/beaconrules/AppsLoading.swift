import ArgumentParser
import BeaconRulesReplay
import BeaconRulesService
import CoreMetrics
import Logging

/// `--apps FILE` of `http`, `console` and `replay`: the file's apps, each its own service (its
/// campaigns, locales and state, its metrics labelled `app`), every app's state in the one
/// `--state` (each app's rows under its id) or in memory. Exit 2 with the file's problems, the
/// app that does not load, a state that does not open, or `--campaigns` and `--locales`, which
/// the file replaces.
enum AppsLoading {
    static func load(
        file: String, catalog: CatalogOptions, state: StateOptions, presence: PresenceOptions, retention: RetentionOptions,
        logger: Logger, metrics: any MetricsFactory
    ) throws -> RulesApps {
        guard catalog.campaignPaths.isEmpty, catalog.localesDirectory == "Locales" else {
            StandardError.write("beaconrules: --apps gives each app its campaigns and locales: drop --campaigns and --locales\n")
            throw ExitCode(2)
        }
        do {
            return try RulesApps(
                definitions: try AppsFile.read(path: file), state: try state.storage(), presence: { try presence.settings(campaigns: $0) },
                retention: retention.retention, logger: logger, metrics: metrics)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// Opens every app's state now (a database connected, its schema checked): one that does not
    /// open stops the command here (exit 2), before it serves.
    static func openStates(_ apps: RulesApps) async throws {
        for app in apps.apps {
            do { try await app.rules.openState() } catch {
                StandardError.write("beaconrules: app \"\(app.definition.id)\": \(error)\n")
                throw ExitCode(2)
            }
        }
    }
}
