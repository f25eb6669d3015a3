@testable import BeaconRulesStore
import Foundation

/// Lines for two apps side by side (Tests/Fixtures/apps/apps.json: the museum, and a gallery whose
/// one campaign answers the museum's entrance beacon), and what each app alone answers them.
enum AppsTrace {
    static let file = Paths.fixture("apps/apps.json")
    static let galleryCampaigns = Paths.fixture("apps/gallery")

    /// `line` (a JSON object) naming its app first.
    static func tag(_ line: String, _ app: String) -> String {
        #"{"app":"\#(app)","# + line.dropFirst()
    }

    /// Every line twice, once for each app, the museum's first: the same devices, event ids and
    /// beacons in both apps, interleaved line by line.
    static func bothApps(_ lines: [String]) -> [String] {
        lines.flatMap { [tag($0, "museum"), tag($0, "gallery")] }
    }

    /// What each app alone answers `lines` (a replay of its own campaigns, keeping its state in
    /// `directory/museum.db` and `directory/gallery.db`), line by line.
    static func expected(_ lines: [String], directory: String) throws -> (museum: [String], gallery: [String]) {
        let museum = try ReplayOracle(lines: lines, directory: directory, state: directory + "/museum.db")
        let gallery = try ReplayOracle(lines: lines, directory: directory, state: directory + "/gallery.db", extra: ["--campaigns", galleryCampaigns])
        return (try lines.map { try eventID($0) }.map { museum.replies[$0] ?? "" }, try lines.map { try eventID($0) }.map { gallery.replies[$0] ?? "" })
    }

    /// The rows of app `app` in a state file several apps share.
    static func snapshot(_ path: String, app: String) throws -> StateSnapshot {
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        guard let number = try store.number(ofApp: app, create: false) else { throw StoreError(path: path, message: "no app \(app)") }
        store.use(app: number)
        return StateSnapshot(firings: try store.firings(), answers: try store.answers())
    }
}
