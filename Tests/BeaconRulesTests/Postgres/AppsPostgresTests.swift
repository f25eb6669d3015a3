import BeaconRules
@testable import BeaconRulesPostgres
import BeaconRulesService
import BeaconRulesStore
import Foundation
import Logging
import Testing

/// Several apps in one PostgreSQL database (schema version 4), against the tests' private cluster:
/// `serve --apps` keeps each app's state under its id across a restart, a database of before apps
/// is upgraded as the app `default`'s, `beaconrules state` copies and drops one app, and a
/// backend's `RulesApps` shares the database.
@Suite("apps: PostgreSQL", .serialized, .postgresCluster)
struct AppsPostgresTests {
    let directory = Paths.temporaryDirectory()

    static func appSnapshot(_ url: String, app: String) async throws -> StateSnapshot {
        let store = try await PostgresStateStore(location: try PostgresLocation(url: url), app: app, create: false, logger: Logger(label: "test"))
        defer { store.close() }
        return StateSnapshot(firings: try await store.firings(), answers: try await store.answers())
    }

    @Test func twoAppsServedOnOneDatabaseAnswerAsEachAloneAndARestartKeepsBoth() async throws {
        let url = try PostgresCluster.shared().createDatabase("apps_serve")
        let lines = MuseumTrace.interleave(MuseumTrace.devices(6, events: 30, prefix: "pgapps"))
        let expected = try AppsTrace.expected(lines, directory: directory)
        var server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", url])
        let replies = try await LineClient.exchange(port: server.port, lines: AppsTrace.bothApps(lines))
        await server.stop()
        #expect(replies.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) == expected.museum)
        #expect(replies.enumerated().filter { $0.offset % 2 == 1 }.map(\.element) == expected.gallery)

        // A new process: each app's resends answered from its own rows.
        server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", url])
        let resent = try await LineClient.exchange(port: server.port, lines: Array(AppsTrace.bothApps(lines).suffix(60)))
        await server.stop()
        #expect(resent == Array(replies.suffix(60)))
        #expect(try await Self.appSnapshot(url, app: "museum") == snapshot(directory + "/museum.db"))
        #expect(try await Self.appSnapshot(url, app: "gallery") == snapshot(directory + "/gallery.db"))
        #expect(try await Self.appSnapshot(url, app: "default").answers == 0)
        let apps = try CommandRunner.run(["state", "apps", "--state", url])
        #expect(apps.stdout == "default\nmuseum\ngallery\n", "\(apps.stderr)")
    }

    @Test func aDatabaseOfBeforeAppsIsMigratedAsTheAppDefaults() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("apps_migrate")
        let session = PostgresSession(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        #expect(try await PostgresSchema.migrate(session, to: 3) == 0)
        session.drop()
        // Rows as version 3 kept them: one app, no app in any key.
        _ = try cluster.psql("apps_migrate", """
            INSERT INTO firing (device, campaign, time) VALUES ('anna', 'museumwelcome', 1780639200000);
            INSERT INTO answered (event, records, at) VALUES ('e-1', '{"kind":"silent"}'::bytea, 1);
            INSERT INTO ledger (key, line) VALUES ('3:["c1","de","website"]', '{"unhandled":"website","campaign":"c1","eid":"c1","language":"de","count":2}'::bytea);
            INSERT INTO presence (id, snapshot) VALUES (1, 'snapshot'::bytea);
            INSERT INTO outbox (records, at) VALUES ('{"kind":"silent"}'::bytea, 1);
            """)
        let refused = try CommandRunner.run(["serve", "--port", "0", "--state", url])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("schema version 3; this beaconrules uses version 4"), "\(refused.stderr)")
        let migrated = try CommandRunner.run(["state", "migrate", "--state", url])
        #expect(migrated.stdout.contains("schema version 3 upgraded to 4"), "\(migrated.stderr)")
        for table in ["firing", "answered", "ledger", "presence", "outbox"] {
            #expect(try cluster.psql("apps_migrate", "SELECT DISTINCT app FROM \(table)") == "0\n", "\(table)")
        }
        #expect(try CommandRunner.run(["state", "apps", "--state", url]).stdout == "default\n")
        let kept = try await Self.appSnapshot(url, app: "default")
        #expect(kept.firings == ["anna museumwelcome 1780639200000"])
        #expect(kept.answerBytes == ["e-1": Array(#"{"kind":"silent"}"#.utf8)])
        let store = try await PostgresStateStore(location: try PostgresLocation(url: url), logger: Logger(label: "test"))
        #expect(try await store.readPresence() == Array("snapshot".utf8))
        #expect(try await store.readOutbox(after: 0, limit: 10).count == 1)
        #expect(try await store.readLedger().allLines().count == 1)
        store.close()
        // Another app sees none of it.
        let other = try await PostgresStateStore(location: try PostgresLocation(url: url), app: "museum", logger: Logger(label: "test"))
        #expect(try await other.firings().isEmpty)
        #expect(try await other.readPresence() == nil)
        #expect(try await other.readOutbox(after: 0, limit: 10).isEmpty)
        other.close()
        // A write that forgets its app fails, rather than writing into the app `default`.
        #expect(throws: (any Error).self) { try cluster.psql("apps_migrate", "INSERT INTO firing (device, campaign, time) VALUES ('x', 'y', 1)") }
    }

    @Test func copyOneAppThereAndBackAndDropIt() async throws {
        let url = try PostgresCluster.shared().createDatabase("apps_copy")
        let lines = MuseumTrace.interleave(MuseumTrace.devices(4, events: 20, prefix: "pgcopy"))
        let file = directory + "/apps.db"
        let server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", file])
        _ = try await LineClient.exchange(port: server.port, lines: AppsTrace.bothApps(lines))
        await server.stop()
        let gallery = try AppsTrace.snapshot(file, app: "gallery")

        let there = try CommandRunner.run(["state", "copy", "--from", file, "--to", url, "--app", "gallery"])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(try await Self.appSnapshot(url, app: "gallery") == gallery)
        let twice = try CommandRunner.run(["state", "copy", "--from", file, "--to", url, "--app", "gallery"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains(#"the app "gallery" already holds state here"#), "\(twice.stderr)")
        let renamed = try CommandRunner.run(["state", "copy", "--from", file, "--to", url, "--app", "museum", "--as", "museum-2"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try await Self.appSnapshot(url, app: "museum-2") == AppsTrace.snapshot(file, app: "museum"))

        let back = directory + "/back.db"
        #expect(try CommandRunner.run(["state", "copy", "--from", url, "--to", back, "--app", "gallery"]).status == 0)
        #expect(try AppsTrace.snapshot(back, app: "gallery") == gallery)

        let dropped = try CommandRunner.run(["state", "drop", "--state", url, "--app", "gallery"])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(try CommandRunner.run(["state", "apps", "--state", url]).stdout == "default\nmuseum-2\n")
        #expect(try await Self.appSnapshot(url, app: "museum-2") == AppsTrace.snapshot(file, app: "museum"))
        let unknown = try CommandRunner.run(["state", "drop", "--state", url, "--app", "gallery"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"no app "gallery" in this state; it holds "default", "museum-2""#), "\(unknown.stderr)")
    }

    /// `state drop` of an app an instance serves: refused while the instance has it open (it holds
    /// the app's lock), naming the app; nothing is dropped and the instance saves on. Once the
    /// instance has lost its connections (a restart of the database), the app is not held and the
    /// drop goes through; the instance then answers the app's lines with an error that says the
    /// app was dropped (it reconnects, finds it gone), never as saved, and serves the other app on.
    @Test func droppingAServedAppIsRefusedAndAnInstanceThatLostItAnswersNoLineAsSaved() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("apps_drop_served")
        let gallery = MuseumTrace.interleave(MuseumTrace.devices(2, events: 10, prefix: "pgdrop")).map { AppsTrace.tag($0, "gallery") }
        try await ServerProcess.with(["--apps", AppsTrace.file, "--state", url]) { server in
            var first: [String] = []
            for line in gallery.prefix(5) { first.append(try await ServePostgresTests.answeredOK(line, port: server.port)) }
            let refused = try CommandRunner.run(["state", "drop", "--state", url, "--app", "gallery"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains(#"cannot drop the app "gallery" while it is served"#), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was dropped"), "\(refused.stderr)")
            #expect(try await LineClient.exchange(port: server.port, lines: Array(gallery.prefix(5))) == first)
            #expect(try await Self.appSnapshot(url, app: "gallery").answers == 5)

            try await cluster.endBackends(of: "apps_drop_served")
            let dropped = try CommandRunner.run(["state", "drop", "--state", url, "--app", "gallery"])
            #expect(dropped.status == 0, "\(dropped.stderr)")
            var replies: [String] = []
            for line in gallery.dropFirst(5).prefix(3) { replies += try await LineClient.exchange(port: server.port, lines: [line]) }
            #expect(replies.allSatisfy { $0.hasPrefix(#"{"ok":false"#) && $0.contains("state not saved") }, "\(replies)")
            #expect(replies.last?.contains(#"the app \"gallery\" was dropped from the database"#) == true, "\(replies)")
            let museum = try await ServePostgresTests.answeredOK(ServeAppsTests.enter("museum", id: "m-1"), port: server.port)
            #expect(museum.contains("museum-welcome"), "\(museum)")
        }
        #expect(try CommandRunner.run(["state", "apps", "--state", url]).stdout == "default\nmuseum\n")
        #expect(try cluster.psql("apps_drop_served", "SELECT count(*) FROM answered WHERE app NOT IN (SELECT num FROM beaconrules_app)") == "0\n")
    }

    @Test func anEmbeddersAppsShareTheDatabaseEachWithItsOwnRows() async throws {
        let url = try PostgresCluster.shared().createDatabase("apps_embedded")
        let apps = try RulesApps(definitions: try AppsFile.read(path: AppsTrace.file), state: .postgres(try PostgresLocation(url: url)))
        let event = ServeAppsTests.enter(nil, id: "e-1")
        var campaigns: [[String]] = []
        for id in ["museum", "gallery", "museum"] {
            guard case .accepted(_, let records) = try await #require(apps.app(id: id)).rules.process(lines: [event])[0] else {
                Issue.record("refused")
                return
            }
            campaigns.append(records.map(\.campaign))
        }
        for app in apps.apps { await app.rules.close() }
        #expect(campaigns[0].contains("museum-welcome") && !campaigns[0].contains("gallery-hello"))
        #expect(campaigns[1] == ["gallery-hello"])
        #expect(campaigns[2] == campaigns[0])
        #expect(try await Self.appSnapshot(url, app: "museum").answers == 1)
        #expect(try await Self.appSnapshot(url, app: "gallery").answers == 1)
    }
}
