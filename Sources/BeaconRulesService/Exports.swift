// What the service's API names (events, records' parts, presence settings, diagnostics) comes
// from the engine: a user imports only `BeaconRulesService`.
@_exported public import BeaconRules
