// What an embedder names when it calls the service, and nothing more: the engine's types that
// the service's API takes or gives, each re-exported on its own, so that a user imports only
// `BeaconRulesService`. The engine's machinery (`LinePipeline`, `RulesEngine`, `JSONWriter`,
// the parsers, the stores' protocols) is not re-exported: a program that drives the engine itself
// depends on the `BeaconRules` product and imports it. Each line's reason is in ARCHITECTURE.md
// ("Public is what a user needs"); the members of these types come with them.

// Events in: what `process(_:)` and `respond(_:)` take.
@_exported public import struct BeaconRules.BeaconEvent
@_exported public import enum BeaconRules.EventKind
@_exported public import struct BeaconRules.BeaconID
@_exported public import struct BeaconRules.Timestamp
@_exported public import struct BeaconRules.ResponseEvent
@_exported public import enum BeaconRules.ResponseAction

// The service's settings: `init(...presence:retention:)`.
@_exported public import struct BeaconRules.PresenceSettings
@_exported public import struct BeaconRules.Retention

// What is loaded, and why a load fails: `RulesCatalog`, `LocaleSource.table`.
@_exported public import struct BeaconRules.RulesCatalog
@_exported public import struct BeaconRules.CampaignSet
@_exported public import struct BeaconRules.Campaign
@_exported public import struct BeaconRules.LocaleTable
@_exported public import struct BeaconRules.Diagnostic
@_exported public import struct BeaconRules.CampaignLoadError

// Answers: an explanation's verdict, a record's and a response's JSON.
@_exported public import enum BeaconRules.Verdict
@_exported public import enum BeaconRules.JSONValue
@_exported public import struct BeaconRules.JSONMember
@_exported public import struct BeaconRules.JSONElement
@_exported public import struct BeaconRules.JSONSyntaxError

// Records out: `Record`'s members, and the engine's record `Record(_:)` takes.
@_exported public import struct BeaconRules.NotificationRecord
@_exported public import enum BeaconRules.ActionType
@_exported public import struct BeaconRules.NotificationCategory
@_exported public import struct BeaconRules.CategoryAction
@_exported public import struct BeaconRules.NotificationAction
@_exported public import struct BeaconRules.FollowUpRecord

// Lines in: `process(lines:source:linesWithoutID:)` says how a line without an id is known.
@_exported public import struct BeaconRules.LineIntake

// A state that does not open or commit: where and why.
@_exported public import struct BeaconRulesStore.StoreError
