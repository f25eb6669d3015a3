/// The apps of a state (SQLite or PostgreSQL) that several apps share (`--apps FILE` with
/// `--state`): every row names its app by a number, which the state's table of apps gives each
/// app id. A state written before apps, and every command run without `--apps`, is the app
/// `default`'s (number 0 in an upgraded state).
package enum StateApps {
    /// The app of a state written without `--apps`: `serve`, `replay`, `http` and `RulesService`
    /// with one app, and everything a state held before apps existed.
    package static let defaultID = "default"

    /// "no app "x" in PLACE; it holds "a", "b"": the error of a command given an app the
    /// state does not have.
    package static func unknown(_ id: String, in place: String, holding ids: [String]) -> StoreError {
        let held = ids.isEmpty ? "no app at all" : ids.map { "\"\($0)\"" }.joined(separator: ", ")
        return StoreError(path: place, message: "no app \"\(id)\" in this state; it holds \(held)")
    }

    /// The error of a copy into a state whose app holds rows already (a copy never merges).
    package static func occupied(_ id: String, in place: String) -> StoreError {
        StoreError(path: place, message: "the app \"\(id)\" already holds state here; drop it first (`beaconrules state drop --app \(id)`) or copy under another id (`--as`)")
    }
}

/// How many rows of each kind an app held: what `beaconrules state drop` removed.
package struct AppRowCounts: Sendable, Equatable {
    package var firings = 0
    package var answers = 0
    package var ledgerLines = 0
    package var outboxEntries = 0

    package init() {}

    package var summary: String {
        "\(firings) firings, \(answers) answers, \(ledgerLines) ledger lines, \(outboxEntries) outbox entries"
    }
}
