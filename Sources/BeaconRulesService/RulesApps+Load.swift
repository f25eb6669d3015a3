public import BeaconRules
import BeaconRulesServer
public import CoreMetrics
public import Logging

extension RulesApps {
    /// The apps of an apps file (`AppsFile.read(path:)`), each its own `RulesService` over the
    /// campaigns and locales its definition names, with its state from `state` (by default in
    /// memory; a storage per app), its presence settings from `presence` (nil:
    /// `RulesService.defaultPresence(for:)`), its logs with the metadata `app` and its metrics
    /// with the label `app`. Throws `AppLoadError`, naming the first app that cannot be served.
    public convenience init(
        definitions: [AppDefinition], state: (AppDefinition) -> StateStorage = { _ in .inMemory },
        presence: (CampaignSet) throws -> PresenceSettings? = { _ in nil }, retention: Retention = .default,
        logger: Logger = Logger(label: "beaconrules"), metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(AppLoadError) {
        try self.init(
            definitions: definitions, states: { definitions.map { StateStorage.AppState(storage: state($0)) } },
            presence: presence, retention: retention, logger: logger, metrics: metrics)
    }

    /// The apps of an apps file as `init(definitions:state:presence:retention:logger:metrics:)`
    /// makes them, every app's state in the one `state`, each app's rows under its id: an SQLite
    /// file (the apps' services then take turns on one thread, the file's connection) or a
    /// PostgreSQL database (each app's service with its own connection). A state written
    /// without apps is the app `default`'s.
    public convenience init(
        definitions: [AppDefinition], state: StateStorage,
        presence: (CampaignSet) throws -> PresenceSettings? = { _ in nil }, retention: Retention = .default,
        logger: Logger = Logger(label: "beaconrules"), metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(AppLoadError) {
        try self.init(
            definitions: definitions, states: { try state.apps(definitions.map(\.id)) },
            presence: presence, retention: retention, logger: logger, metrics: metrics)
    }

    private convenience init(
        definitions: [AppDefinition], states: () throws -> [StateStorage.AppState],
        presence: (CampaignSet) throws -> PresenceSettings?, retention: Retention, logger: Logger, metrics: any MetricsFactory
    ) throws(AppLoadError) {
        let appStates: [StateStorage.AppState]
        do { appStates = try states() } catch {
            throw AppLoadError(app: definitions.map(\.id).joined(separator: ", "), underlying: error)
        }
        var apps: [App] = []
        for (definition, appState) in zip(definitions, appStates) {
            do {
                let catalog = try Self.catalog(of: definition)
                var appLogger = logger
                appLogger[metadataKey: "app"] = "\(definition.id)"
                let rules = try RulesService(
                    catalog: catalog, state: appState, presence: try presence(catalog.campaigns), retention: retention,
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

    package init(app: String, underlying: any Error) {
        self.app = app
        self.underlying = underlying
    }

    /// Each line of the reason, after `app "ID": `.
    public var description: String {
        "\(underlying)".split(separator: "\n").map { "app \"\(app)\": \($0)" }.joined(separator: "\n")
    }
}
