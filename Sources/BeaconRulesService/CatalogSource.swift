public import BeaconRules
public import Foundation

/// Where campaigns come from: files and folders as `beaconrules --campaigns` reads them (JSON,
/// and `.xml` exports, SPEC section 6), or documents already in memory.
public enum CampaignSource: Sendable {
    /// A campaign file, or a folder read recursively in file-name order.
    case path(String)
    /// A JSON campaign document (one campaign or an array); `name` is what diagnostics call it.
    case json(String, name: String = "campaigns.json")
    /// An XML export (SPEC section 6); `name` is what diagnostics call it.
    case xml(String, name: String = "campaigns.xml")
    /// JSON or XML bytes, told apart by `name`'s extension (`.xml`, else JSON).
    case data(Data, name: String)
}

/// Where the per-language default strings come from.
public enum LocaleSource: Sendable {
    /// A folder of `TAG.json` files (`Locales/`), as `beaconrules --locales` reads it.
    case folder(String)
    /// A table built in code.
    case table(LocaleTable)
    /// No defaults: campaigns' own strings only.
    case none
}
