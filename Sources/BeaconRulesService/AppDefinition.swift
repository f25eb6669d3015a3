/// One app of a service that hosts several (`--apps FILE`, docs/http.md "Apps"): a venue or a
/// customer with its own campaigns, locales, API keys and state. Without an apps file a process
/// serves one app, the one every request belongs to.
public struct AppDefinition: Sendable, Hashable {
    /// Names the app in state, metrics (the `app` label), logs and the line protocol's `app`
    /// field: 1 to 64 of `A-Z a-z 0-9 _ -`.
    public var id: String
    /// The API keys that name this app over HTTP (`X-Api-Key`); none is shared with another app.
    public var keys: [String]
    /// Campaign files and folders, as `--campaigns` takes them (absolute once read from a file).
    public var campaigns: [String]
    /// The folder of per-language defaults, as `--locales`; nil: the campaigns' own strings only.
    public var locales: String?

    /// An app of these campaigns, locales and keys.
    public init(id: String, keys: [String], campaigns: [String], locales: String? = nil) {
        self.id = id
        self.keys = keys
        self.campaigns = campaigns
        self.locales = locales
    }

    /// Whether `id` is an app id: 1 to 64 of `A-Z a-z 0-9 _ -`.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
        }
    }
}
