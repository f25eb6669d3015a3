public import BeaconRules
import BeaconRulesServer
public import CoreMetrics
public import Logging

extension RulesApps {
    /// The apps of an apps file (`AppsFile.read(path:)`), each its own `RulesService` over the
    /// campaigns and locales its definition names, with its state from `state` (by default in
    /// memory), its presence settings from `presence` (nil: `RulesService.defaultPresence(for:)`),
    /// its logs with the metadata `app` and its metrics with the label `app`. Throws
    /// `AppLoadError`, naming the first app that cannot be served.
    public convenience init(
        definitions: [AppDefinition], state: (AppDefinition) -> StateStorage = { _ in .inMemory },
        presence: (CampaignSet) throws -> PresenceSettings? = { _ in nil }, retention: Retention = .default,
        logger: Logger = Logger(label: "beaconrules"), metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(AppLoadError) {
        var apps: [App] = []
        for definition in definitions {
            do {
                let catalog = try Self.catalog(of: definition)
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(definition.id)"
                let rules = try RulesService(
                    catalog: catalog, state: state(definition), presence: try presence(catalog.campaigns), retention: retention,
                    logger: appLogger, metrics: AppMetricsFactory(base: metrics, app: definition.id))
                apps.append(App(definition: definition, rules: rules))
            } catch {
                throw AppLoadError(app: definition.id, underlying: error)
            }
        }
        self.init(apps)
    }

    /// The campaigns and locales `definition` names, read as `--campaigns` and `--locales` read
    /// them (what a reload of the app reads again).
    public static func catalog(of definition: AppDefinition) throws(CampaignLoadError) -> RulesCatalog {
        try RulesCatalog(campaigns: definition.campaigns.map(CampaignSource.path), locales: definition.locales.map(LocaleSource.folder) ?? .none)
    }
}

/// An app of an apps file that cannot be served: which one, and why.
public struct AppLoadError: Error, CustomStringConvertible {
    /// The app's id.
    public var app: String
    /// Why: a `CampaignLoadError`, a `StoreError`, ...
    public var underlying: any Error

    /// Each line of the reason, after `app "ID": `.
    public var description: String {
        "\(underlying)".split(separator: "\n").map { "app \"\(app)\": \($0)" }.joined(separator: "\n")
    }
}
