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

    /// The error of a drop of an app that an instance has open on the database (it serves the
    /// app: `serve`, `http`, `console`, a replay, a report or an embedding service): refused,
    /// nothing dropped.
    package static func served(_ id: String, in place: String) -> StoreError {
        StoreError(path: place, message: "cannot drop the app \"\(id)\" while it is served: an instance connected to this database has it open (serve, http, console, replay, report or an embedding service); stop every instance that serves it, then drop it; nothing was dropped")
    }

    /// The error of a drop of an app from a state file another process has open (`inUse`): that
    /// process may be serving the app, and holds the file's lock. Refused, nothing dropped.
    package static func fileInUse(dropping id: String, _ error: StoreError) -> StoreError {
        StoreError(path: error.path, message: "cannot drop the app \"\(id)\" while another beaconrules process has the state file open (\(error.path).lock is locked): it may be serving the app; stop it, then drop the app; nothing was dropped")
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
