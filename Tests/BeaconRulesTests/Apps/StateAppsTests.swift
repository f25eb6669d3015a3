@testable import BeaconRulesStore
import BeaconRulesService
import Foundation
import Testing

/// Several apps' state in one SQLite file: a file of before apps upgraded as the app `default`'s,
/// `beaconrules state` copying and dropping one app, and the other commands' `--apps --state`.
@Suite("state: apps in one SQLite file")
struct StateAppsTests {
    let directory = Paths.temporaryDirectory()
    let lines = MuseumTrace.interleave(MuseumTrace.devices(4, events: 25, prefix: "st"))

    /// A state file several apps' `serve` kept: the museum's and the gallery's answers to `lines`.
    func servedBothApps(_ state: String) async throws -> [String] {
        let server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", state])
        let replies = try await LineClient.exchange(port: server.port, lines: AppsTrace.bothApps(lines))
        await server.stop()
        return replies
    }

    func run(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(arguments)
    }

    @Test func aFileOfBeforeAppsBecomesTheAppDefaultsWithEveryRowAndIsServedAsBefore() async throws {
        let state = directory + "/one-app.db"
        var server = try await ServerProcess.start(["--state", state])
        let first = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        let before = try snapshot(state)
        try SQLiteLedgerLayoutTests.makeVersionTwo(state)
        let old = try SQLiteConnection(path: state)
        #expect(try old.integer("PRAGMA user_version") == 2)
        #expect(try old.integer("SELECT count(*) FROM pragma_table_info('firing') WHERE name = 'app'") == 0)
        old.close()

        // Opened: upgraded to version 5 (the apps came with 3), every row the app `default`'s.
        let store = try SQLiteStateStore(path: state)
        #expect(try store.db.integer("PRAGMA user_version") == 5)
        #expect(try store.apps().map(\.id) == ["default"])
        #expect(try store.db.integer("SELECT count(*) FROM firing WHERE app <> 0") == 0)
        store.close()
        #expect(try snapshot(state) == before)
        #expect(try AppsTrace.snapshot(state, app: "default") == before)

        // One app as before: resends answered from the upgraded file, byte for byte.
        server = try await ServerProcess.start(["--state", state])
        #expect(try await LineClient.exchange(port: server.port, lines: lines) == first)
        await server.stop()
        // And an apps file whose app is named `default` serves that state.
        let apps = directory + "/apps.json"
        try #"{"apps": [{"id": "default", "keys": ["k"], "campaigns": ["\#(Paths.campaigns)"], "locales": "\#(Paths.locales)"}]}"#
            .write(toFile: apps, atomically: true, encoding: .utf8)
        server = try await ServerProcess.start(["--apps", apps, "--state", state])
        #expect(try await LineClient.exchange(port: server.port, lines: lines.map { AppsTrace.tag($0, "default") }) == first)
        await server.stop()
        #expect(try run(["state", "apps", "--state", state]).stdout == "default\n")
    }

    @Test func copyOneAppIntoAnotherStateUnderItsIdOrAnotherAndDropOneApp() async throws {
        let state = directory + "/apps.db"
        let replies = try await servedBothApps(state)
        #expect(try run(["state", "apps", "--state", state]).stdout == "default\nmuseum\ngallery\n")
        let gallery = try AppsTrace.snapshot(state, app: "gallery"), museum = try AppsTrace.snapshot(state, app: "museum")
        #expect(gallery.answers == lines.count && museum.answers == lines.count)

        // One app into a new file, under its id.
        let copy = directory + "/copy.db"
        let copied = try run(["state", "copy", "--from", state, "--to", copy, "--app", "gallery"])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout == "copied app \"gallery\" (\(gallery.firings.count) firings, \(lines.count) answers, 0 ledger lines, 0 outbox entries) to \(copy)\n"
            || copied.stdout.hasPrefix("copied app \"gallery\" ("), "\(copied.stdout)")
        #expect(try AppsTrace.snapshot(copy, app: "gallery") == gallery)
        #expect(try run(["state", "apps", "--state", copy]).stdout == "default\ngallery\n")
        // Again: the copy holds that app now; a copy never merges.
        let again = try run(["state", "copy", "--from", state, "--to", copy, "--app", "gallery"])
        #expect(again.status == 2)
        #expect(again.stderr.contains(#"the app "gallery" already holds state here"#), "\(again.stderr)")
        // The museum beside it.
        #expect(try run(["state", "copy", "--from", state, "--to", copy, "--app", "museum"]).status == 0)
        #expect(try AppsTrace.snapshot(copy, app: "museum") == museum)

        // As the app `default`: the gallery's state served by `serve` of one app, resends answered
        // as the apps' serve answered them.
        let single = directory + "/single.db"
        let promoted = try run(["state", "copy", "--from", state, "--to", single, "--app", "gallery", "--as", "default"])
        #expect(promoted.status == 0, "\(promoted.stderr)")
        let server = try await ServerProcess.start(["--state", single, "--campaigns", AppsTrace.galleryCampaigns])
        let resent = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        #expect(resent == replies.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))

        // What the copy refuses, naming what it expected.
        let unknown = try run(["state", "copy", "--from", state, "--to", directory + "/x.db", "--app", "cafe"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"no app "cafe" in this state; it holds "default", "museum", "gallery""#), "\(unknown.stderr)")
        let asAlone = try run(["state", "copy", "--from", state, "--to", directory + "/x.db", "--as", "other"])
        #expect(asAlone.status != 0)
        #expect(asAlone.stderr.contains("give --app too"))
        let odd = try run(["state", "copy", "--from", state, "--to", directory + "/x.db", "--app", "../gallery"])
        #expect(odd.status != 0)
        #expect(odd.stderr.contains("is not an app id"))
        let whole = try run(["state", "copy", "--from", state, "--to", copy])
        #expect(whole.status == 2)
        #expect(whole.stderr.contains("already holds a state"))

        // Drop one app: its rows go, the other's stay as they were.
        let dropped = try run(["state", "drop", "--state", state, "--app", "gallery"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.stdout.hasPrefix("dropped app \"gallery\" (\(gallery.firings.count) firings, \(lines.count) answers"), "\(dropped.stdout)")
        #expect(try run(["state", "apps", "--state", state]).stdout == "default\nmuseum\n")
        #expect(try AppsTrace.snapshot(state, app: "museum") == museum)
        let store = try SQLiteStateStore(path: state)
        #expect(try store.db.integer("SELECT count(*) FROM answered") == Int64(lines.count))
        store.close()
        let twice = try run(["state", "drop", "--state", state, "--app", "gallery"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains(#"no app "gallery" in this state; it holds "default", "museum""#), "\(twice.stderr)")
        let missing = try run(["state", "drop", "--state", directory + "/typo.db", "--app", "gallery"])
        #expect(missing.status == 2)
        #expect(!FileManager.default.fileExists(atPath: directory + "/typo.db"))
    }

    /// `state drop` of an app that `serve --apps` serves from the file: refused (the server holds
    /// the file's lock), naming the app and why; the server goes on answering and saving the app,
    /// and once it has stopped the drop goes through.
    @Test func droppingAnAppWhileServeServesItIsRefusedAndChangesNothing() async throws {
        let state = directory + "/served.db"
        let gallery = lines.map { AppsTrace.tag($0, "gallery") }
        try await ServerProcess.with(["--apps", AppsTrace.file, "--state", state]) { server in
            let first = try await LineClient.exchange(port: server.port, lines: Array(gallery.prefix(10)))
            #expect(first.allSatisfy { $0.hasPrefix(#"{"ok":true"#) }, "\(first)")
            let refused = try run(["state", "drop", "--state", state, "--app", "gallery"])
            #expect(refused.status == 2)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains(#"cannot drop the app "gallery" while another beaconrules process has the state file open"#), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was dropped"), "\(refused.stderr)")
            // Served on, every answer saved: a resend is answered as before.
            let rest = try await LineClient.exchange(port: server.port, lines: Array(gallery.dropFirst(10)) + Array(gallery.prefix(10)))
            #expect(rest.suffix(10) == first[...])
            #expect(rest.allSatisfy { $0.hasPrefix(#"{"ok":true"#) })
        }
        #expect(try run(["state", "apps", "--state", state]).stdout == "default\nmuseum\ngallery\n")
        #expect(try AppsTrace.snapshot(state, app: "gallery").answers == lines.count)
        let dropped = try run(["state", "drop", "--state", state, "--app", "gallery"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(try run(["state", "apps", "--state", state]).stdout == "default\nmuseum\n")
    }

    @Test func aWholeCopyTakesEveryApp() async throws {
        let state = directory + "/apps.db"
        _ = try await servedBothApps(state)
        let copy = directory + "/copy.db"
        let copied = try run(["state", "copy", "--from", state, "--to", copy])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("of 3 apps to \(copy)"), "\(copied.stdout)")
        for app in ["museum", "gallery"] {
            #expect(try AppsTrace.snapshot(copy, app: app) == AppsTrace.snapshot(state, app: app))
        }
    }

    @Test func reportAndExplainReadTheAppTheyAreGiven() async throws {
        let state = directory + "/apps.db"
        _ = try await servedBothApps(state)
        let museum = try run(["report", "--state", state, "--app", "museum", "--json"])
        let gallery = try run(["report", "--state", state, "--app", "gallery", "--json"])
        #expect(museum.status == 0 && gallery.status == 0, "\(museum.stderr) \(gallery.stderr)")
        #expect(museum.stdout.contains("museum-") && !museum.stdout.contains("gallery-hello"), "\(museum.stdout)")
        #expect(gallery.stdout.contains("gallery-hello") && !gallery.stdout.contains("museum-"), "\(gallery.stdout)")
        let unknown = try run(["report", "--state", state, "--app", "cafe"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"no app "cafe""#))

        let event = #"{"device":"st-dev-0","type":"enter","beacon":"\#(ServeAppsTests.entrance)","time":1780639200000}"#
        let explained = try run(["explain", event, "--state", state, "--app", "gallery", "--campaigns", AppsTrace.galleryCampaigns, "--json"])
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(explained.stdout.contains("gallery-hello"))
        let nowhere = try run(["explain", event, "--state", state, "--app", "cafe"])
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.contains(#"no app "cafe""#))
    }

    @Test func httpAndReplayWithAppsKeepEachAppsStateInTheOneFile() async throws {
        let state = directory + "/apps.db"
        let tagged = directory + "/tagged.jsonl"
        try AppsTrace.bothApps(lines).joined(separator: "\n").appending("\n").write(toFile: tagged, atomically: true, encoding: .utf8)
        let first = try run(["replay", "--apps", AppsTrace.file, "--state", state, tagged])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("gallery-hello") && first.stdout.contains("museum-welcome"))
        let again = try run(["replay", "--apps", AppsTrace.file, "--state", state, tagged])
        #expect(again.stdout == first.stdout)
        #expect(try AppsTrace.snapshot(state, app: "gallery").answers == lines.count)

        // `http --apps` on the same file: the answers `replay` kept, per app.
        let server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", state], command: "http")
        let event = directory + "/event.json"
        try lines[0].write(toFile: event, atomically: true, encoding: .utf8)
        let url = "127.0.0.1:\(server.port)/events"
        let museum = try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: museum-key-0001", "-d", "@" + event, url])
        let gallery = try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: gallery-key-0001", "-d", "@" + event, url])
        server.signal(SIGTERM)
        #expect(await server.waitForExit() == 0)
        // Answered from the file: the records `replay` gave each app for that event, byte for byte.
        let records = first.stdout.split(separator: "\n").filter { $0.contains(#""event":"st-0-0""#) }
        #expect(records.filter { !$0.contains("gallery-") }.allSatisfy { museum.contains($0) }, "\(museum)")
        #expect(records.filter { $0.contains("gallery-") }.allSatisfy { gallery.contains($0) }, "\(gallery)")
        #expect(!museum.contains("gallery-") && !gallery.contains("museum-"))
    }

    /// A backend's `RulesApps` on one state file: each app's rows under its id, a second start on
    /// the same file answers each app's resend from its own state.
    @Test func anEmbedderKeepsEveryAppsStateInOneFile() async throws {
        let state = directory + "/embedded.db"
        let event = ServeAppsTests.enter(nil, id: "e-1")
        func process() async throws -> [[LineOutcome]] {
            let apps = try RulesApps(definitions: try AppsFile.read(path: AppsTrace.file), state: .sqlite(path: state))
            var outcomes: [[LineOutcome]] = []
            for id in ["museum", "gallery"] {
                outcomes.append(try await #require(apps.app(id: id)).rules.process(lines: [event]))
            }
            for app in apps.apps { await app.rules.close() }
            return outcomes
        }
        let first = try await process()
        guard case .accepted(_, let museum) = first[0][0], case .accepted(_, let gallery) = first[1][0] else {
            Issue.record("refused: \(first)")
            return
        }
        #expect(museum.map(\.campaign).contains("museum-welcome") && !museum.map(\.campaign).contains("gallery-hello"))
        #expect(gallery.map(\.campaign) == ["gallery-hello"])
        let second = try await process()
        #expect("\(second)" == "\(first)")
        #expect(try AppsTrace.snapshot(state, app: "gallery").answers == 1)
        #expect(try AppsTrace.snapshot(state, app: "museum").answers == 1)
        #expect(try AppsTrace.snapshot(state, app: "default").answers == 0)
    }
}

/// `beaconrules console --apps FILE`: the standalone console lists the file's apps, and each
/// app's pages show only its campaigns and its results.
@Suite("console --apps")
struct ConsoleAppsTests {
    @Test func theConsoleListsTheAppsAndEachAppsPagesAreItsOwn() async throws {
        let state = Paths.temporaryDirectory() + "/apps.db"
        try await ServerProcess.with(["--apps", AppsTrace.file, "--state", state], command: "console") { server in
            let base = "127.0.0.1:\(server.port)"
            let list = try HTTPFrontTests.curl(["-sS", base + "/"])
            #expect(list.contains(#"href="/apps/museum/""#) && list.contains(#"href="/apps/gallery/""#), "\(list)")
            let gallery = try HTTPFrontTests.curl(["-sS", base + "/apps/gallery/"])
            #expect(gallery.contains("gallery-hello") && !gallery.contains("museum-welcome"))
            let museum = try HTTPFrontTests.curl(["-sS", base + "/apps/museum/"])
            #expect(museum.contains("museum-welcome") && !museum.contains("gallery-hello"))
            let results = try HTTPFrontTests.curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", base + "/apps/gallery/results"])
            #expect(results == "200")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
            #expect(try CommandRunner.run(["state", "apps", "--state", state]).stdout == "default\nmuseum\ngallery\n")
        }
    }
}
