/// The apps one process serves, each with a `RulesService` of its own (its campaigns, locales,
/// state, reload and metrics), and the API keys that name them: the one app model of
/// `beaconrules http`'s routes (the events API, the console, the Sensorberg resolver) and of
/// `serve`. An app's key never reaches another app's service.
///
/// Without an apps file there is one app, `RulesApps(single:)`, and every request is its, with or
/// without a key (as before apps existed).
public final class RulesApps: Sendable {
    /// One app: what the apps file says of it, and its service.
    public struct App: Sendable {
        /// Its id, keys, campaigns and locales.
        public let definition: AppDefinition
        /// Its engine and state.
        public let rules: RulesService

        /// `definition` served by `rules`.
        public init(definition: AppDefinition, rules: RulesService) {
            self.definition = definition
            self.rules = rules
        }
    }

    /// Every app, in the apps file's order.
    public let apps: [App]
    /// Whether a request must name its app by key (an apps file was given).
    public let requiresKey: Bool
    private let byKey: [String: Int]
    private let byID: [String: Int]

    /// One app that every request belongs to, keyed or not.
    public init(single rules: RulesService, id: String = "default") {
        apps = [App(definition: AppDefinition(id: id, keys: [], campaigns: []), rules: rules)]
        requiresKey = false
        byKey = [:]
        byID = [id: 0]
    }

    /// These apps, each with its service; ids and keys must be unique (as `AppsFile` checks).
    public init(_ apps: [App]) {
        precondition(!apps.isEmpty, "RulesApps needs at least one app")
        self.apps = apps
        requiresKey = true
        var byKey: [String: Int] = [:], byID: [String: Int] = [:]
        for (index, app) in apps.enumerated() {
            precondition(byID[app.definition.id] == nil, "two apps with the id \(app.definition.id)")
            byID[app.definition.id] = index
            for key in app.definition.keys {
                precondition(byKey[key] == nil, "a key of two apps")
                byKey[key] = index
            }
        }
        self.byKey = byKey
        self.byID = byID
    }

    /// The app `key` names; without an apps file, the one app whatever the key. Nil: no app has
    /// this key (HTTP answers 401).
    public func app(apiKey key: String?) -> App? {
        guard requiresKey else { return apps[0] }
        return key.flatMap { byKey[$0] }.map { apps[$0] }
    }

    /// The app with this id.
    public func app(id: String) -> App? {
        byID[id].map { apps[$0] }
    }
}
