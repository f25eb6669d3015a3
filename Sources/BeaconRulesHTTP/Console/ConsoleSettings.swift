/// How the console is served (`beaconrules console`, or `beaconrules http --console`).
package struct ConsoleSettings: Sendable {
    /// The campaign files and folders of the one app without an apps file (`--campaigns`).
    package var campaigns: [String]
    /// Its locales folder (`--locales`).
    package var locales: String?
    /// The token every request must carry (`--token-file`); nil on loopback without one.
    package var token: String?
    /// The token every POST carries back; random per process, so that another site's page
    /// cannot make a console user's browser post.
    package var csrf: String
    /// Whether the service keeps state (`--state`): `/try` reads each device's history, and
    /// `/results` has funnels.
    package var hasState: Bool
    /// The largest form, edit or upload, in bytes.
    package var maximumBody: Int

    package init(campaigns: [String], locales: String?, token: String? = nil, csrf: String = ConsoleSettings.randomToken(), hasState: Bool = false, maximumBody: Int = 4 << 20) {
        self.campaigns = campaigns
        self.locales = locales
        self.token = token
        self.csrf = csrf
        self.hasState = hasState
        self.maximumBody = maximumBody
    }

    /// 32 random bytes as hex.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }
}
