import BeaconRulesHTTP
import BeaconRulesService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Two apps side by side in `beaconrules http` (Tests/Fixtures/apps/apps.json: the museum and a
/// gallery whose campaign answers the museum's entrance beacon): every route is tried with each
/// app's key, and one app's key never reads or changes the other's.
@Suite("beaconrules http --apps")
struct AppsHTTPTests {
    static let museumKey = "museum-key-0001"
    static let galleryKey = "gallery-key-0002"
    /// The museum's entrance, which both apps' campaigns answer.
    static let entrance = "b9407f30f5f8466eaff925556b57fe6d0010000001"

    static func apps() throws -> RulesApps {
        let definitions = try AppsFile.read(path: Paths.fixture("apps/apps.json"))
        return RulesApps(try definitions.map { definition in
            RulesApps.App(definition: definition, rules: try RulesService(
                campaigns: definition.campaigns.map(CampaignSource.path), locales: definition.locales.map(LocaleSource.folder) ?? .none))
        })
    }

    static func app() throws -> some ApplicationProtocol {
        buildApplication(apps: try apps(), settings: HTTPSettings(port: 0), logger: Logger(label: "test"))
    }

    static func enter(id: String, device: String = "anna", time: String = "2026-06-05T10:00:00+02:00") -> String {
        #"{"id":"\#(id)","device":"\#(device)","type":"enter","beacon":"\#(entrance)","time":"\#(time)"}"#
    }

    @Test func theSameEventInTwoAppsIsTwoEventsEachDecidedByItsOwnCampaigns() async throws {
        try await Self.app().test(.router) { client in
            let event = ByteBuffer(string: Self.enter(id: "e-1"))
            let museum = try await client.execute(uri: "/events", method: .post, headers: [AppKey.header: Self.museumKey], body: event) { String(buffer: $0.body) }
            let gallery = try await client.execute(uri: "/events", method: .post, headers: [AppKey.header: Self.galleryKey], body: event) { String(buffer: $0.body) }
            #expect(museum.contains(#""campaign":"museum-welcome""#))
            #expect(!museum.contains("gallery-hello"))
            #expect(gallery.contains(#""campaign":"gallery-hello""#))
            #expect(!gallery.contains("museum-"))
        }
    }

    @Test func withoutAKeyOrWithAnUnknownOneEveryEventsRouteIs401() async throws {
        try await Self.app().test(.router) { client in
            for (method, path) in [(HTTPRequest.Method.post, "/events"), (.post, "/responses"), (.get, "/campaigns"), (.post, "/explain")] {
                try await client.execute(uri: path, method: method, body: ByteBuffer(string: Self.enter(id: "e-1"))) { response in
                    #expect(response.status == .unauthorized, "\(path)")
                    #expect(String(buffer: response.body).contains("missing X-Api-Key"))
                }
                try await client.execute(uri: path, method: method, headers: [AppKey.header: "not-a-key"], body: ByteBuffer(string: Self.enter(id: "e-1"))) { response in
                    #expect(response.status == .unauthorized, "\(path)")
                    #expect(String(buffer: response.body).contains("unknown X-Api-Key"))
                }
            }
            try await client.execute(uri: "/layout", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/layout", method: .get, headers: [AppKey.header: "not-a-key"]) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/layout", method: .post, headers: [AppKey.header: "not-a-key"]) { #expect($0.status == .noContent) }
        }
    }

    @Test func campaignsExplainAndLayoutShowOnlyTheKeysApp() async throws {
        try await Self.app().test(.router) { client in
            for (key, own, other) in [(Self.museumKey, "museum-welcome", "gallery-hello"), (Self.galleryKey, "gallery-hello", "museum-welcome")] {
                let headers: HTTPFields = [AppKey.header: key]
                let campaigns = try await client.execute(uri: "/campaigns", method: .get, headers: headers) { String(buffer: $0.body) }
                let explain = try await client.execute(uri: "/explain", method: .post, headers: headers, body: ByteBuffer(string: Self.enter(id: "x"))) { String(buffer: $0.body) }
                let layout = try await client.execute(uri: "/layout", method: .get, headers: headers) { String(buffer: $0.body) }
                for body in [campaigns, explain, layout] {
                    #expect(body.contains(own), "\(key): \(body)")
                    #expect(!body.contains(other), "\(key): \(body)")
                }
            }
        }
    }

    @Test func aResponseReachesOnlyTheAppThatDeliveredTheRecord() async throws {
        let response = #"{"id":"r-1","type":"response","device":"anna","notification":"museum-welcome:anna:e-1","action":"open","time":"2026-06-05T10:00:05+02:00"}"#
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/events", method: .post, headers: [AppKey.header: Self.museumKey], body: ByteBuffer(string: Self.enter(id: "e-1"))) { #expect($0.status == .ok) }
            try await client.execute(uri: "/responses", method: .post, headers: [AppKey.header: Self.galleryKey], body: ByteBuffer(string: response)) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/responses", method: .post, headers: [AppKey.header: Self.museumKey], body: ByteBuffer(string: response)) { #expect($0.status == .ok) }
        }
    }

    @Test func oneAppsSuppressionNeverHoldsTheOthersCampaigns() async throws {
        try await Self.app().test(.router) { client in
            let galleryHeaders: HTTPFields = [AppKey.header: Self.galleryKey]
            // The gallery's history says its campaign was shown; the museum's state is untouched.
            let history = #"{"actions":[{"eid":"gallery-hello","pid":"\#(Self.entrance)","dt":"2026-06-05T09:59:00+02:00","trigger":1}]}"#
            var withInstallation = galleryHeaders
            withInstallation[ResolverRoutes.installation] = "anna"
            try await client.execute(uri: "/layout", method: .post, headers: withInstallation, body: ByteBuffer(string: history)) {
                #expect($0.status == .ok)
            }
            let museum = try await client.execute(uri: "/events", method: .post, headers: [AppKey.header: Self.museumKey], body: ByteBuffer(string: Self.enter(id: "e-2"))) { String(buffer: $0.body) }
            let gallery = try await client.execute(uri: "/events", method: .post, headers: galleryHeaders, body: ByteBuffer(string: Self.enter(id: "e-2"))) { String(buffer: $0.body) }
            #expect(museum.contains("museum-welcome"))
            #expect(gallery == "[]\n")
        }
    }

    @Test func theRealBinaryServesTwoAppsAndRefusesAKeylessRequest() async throws {
        try await ServerProcess.with(["--apps", Paths.fixture("apps/apps.json")], command: "http") { server in
            let eventFile = Paths.temporaryDirectory() + "/event.json"
            try Self.enter(id: "e-1").write(toFile: eventFile, atomically: true, encoding: .utf8)
            let url = "127.0.0.1:\(server.port)/events"
            let museum = try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: \(Self.museumKey)", "-d", "@" + eventFile, url])
            let gallery = try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: \(Self.galleryKey)", "-d", "@" + eventFile, url])
            let keyless = try HTTPFrontTests.curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-d", "@" + eventFile, url])
            #expect(museum.contains("museum-welcome") && !museum.contains("gallery-hello"))
            #expect(gallery.contains("gallery-hello") && !gallery.contains("museum-"))
            #expect(keyless == "401")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }

    @Test func anAppsFileWithCampaignsOrLocalesIsRefused() throws {
        for option in [["--campaigns", "Campaigns"], ["--locales", "Tests/Fixtures"]] {
            let result = try CommandRunner.run(["http", "--apps", Paths.fixture("apps/apps.json")] + option)
            #expect(result.status == 2)
            #expect(result.stderr.contains("--apps gives each app its campaigns and locales"))
        }
    }

    @Test func eachAppsMetricsCarryItsAppLabel() async throws {
        try await ServerProcess.with(["--apps", Paths.fixture("apps/apps.json"), "--metrics-port", "0"], command: "http") { server in
            let metricsPort = try #require(await server.printedPort("metrics on"))
            let eventFile = Paths.temporaryDirectory() + "/event.json"
            try Self.enter(id: "e-1").write(toFile: eventFile, atomically: true, encoding: .utf8)
            _ = try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: \(Self.galleryKey)", "-d", "@" + eventFile, "127.0.0.1:\(server.port)/events"])
            let metrics = try HTTPFrontTests.curl(["-sS", "127.0.0.1:\(metricsPort)/metrics"])
            #expect(metrics.contains(#"beaconrules_events_total{app="gallery"} 1"#), "\(metrics)")
            #expect(!metrics.contains(#"beaconrules_events_total{app="museum"} 1"#))
            #expect(metrics.contains(#"app="museum""#))
        }
    }

    @Test func sighupReloadsEveryAppAndAnAppWhoseFilesBreakKeepsItsSetAndIsNamed() async throws {
        let folder = Paths.temporaryDirectory()
        let files = FileManager.default
        try files.copyItem(atPath: Paths.campaigns, toPath: folder + "/museum")
        try files.copyItem(atPath: Paths.fixture("apps/gallery"), toPath: folder + "/gallery")
        try #"""
            {"apps": [
              {"id": "museum", "keys": ["\#(Self.museumKey)"], "campaigns": ["museum"], "locales": "\#(Paths.locales)"},
              {"id": "gallery", "keys": ["\#(Self.galleryKey)"], "campaigns": ["gallery"], "locales": "\#(Paths.locales)"}
            ]}
            """#.write(toFile: folder + "/apps.json", atomically: true, encoding: .utf8)
        try await ServerProcess.with(["--apps", folder + "/apps.json"], command: "http") { server in
            let extra = #"{"eid":"museum-extra","trigger":1,"type":1,"beacons":["\#(Self.entrance)"],"content":{"subject":"New","body":"A new campaign."}}"#
            try extra.write(toFile: folder + "/museum/museum/04-extra.json", atomically: true, encoding: .utf8)
            try "{ broken".write(toFile: folder + "/gallery/campaigns.json", atomically: true, encoding: .utf8)
            server.signal(SIGHUP)
            func campaigns(_ key: String) throws -> String {
                try HTTPFrontTests.curl(["-sS", "-H", "X-Api-Key: \(key)", "127.0.0.1:\(server.port)/campaigns"])
            }
            var museum = ""
            for _ in 0..<1500 where !museum.contains("museum-extra") {
                museum = try campaigns(Self.museumKey)
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(museum.contains("museum-extra"))
            #expect(try campaigns(Self.galleryKey).contains("gallery-hello"))
            #expect(server.log.contains("reload failed"), "\(server.log)")
            #expect(server.log.contains("app=gallery"), "\(server.log)")
            #expect(!server.log.contains("app=museum errors"), "\(server.log)")
        }
    }

    @Test func anEmbedderServesTheAppsOfAFileEachWithItsOwnStateFile() async throws {
        let folder = Paths.temporaryDirectory()
        let apps = try RulesApps(definitions: try AppsFile.read(path: Paths.fixture("apps/apps.json")), state: { .sqlite(path: folder + "/" + $0.id + ".state") })
        let event = Self.enter(id: "e-1")
        let museum = try await #require(apps.app(apiKey: Self.museumKey)).rules.process(lines: [event])
        let gallery = try await #require(apps.app(id: "gallery")).rules.process(lines: [event])
        guard case .accepted(_, let museumRecords) = museum[0], case .accepted(_, let galleryRecords) = gallery[0] else {
            Issue.record("refused: \(museum) \(gallery)")
            return
        }
        #expect(museumRecords.map(\.campaign).contains("museum-welcome"))
        #expect(galleryRecords.map(\.campaign) == ["gallery-hello"])
        for app in apps.apps { await app.rules.close() }
        #expect(FileManager.default.fileExists(atPath: folder + "/museum.state"))
        #expect(FileManager.default.fileExists(atPath: folder + "/gallery.state"))
    }

    @Test func anAppWhoseCampaignsDoNotLoadIsNamed() throws {
        let file = Paths.temporaryDirectory() + "/broken.json"
        try "{ broken".write(toFile: file, atomically: true, encoding: .utf8)
        let definition = AppDefinition(id: "broken", keys: ["k"], campaigns: [file])
        #expect { try RulesApps(definitions: [definition]) } throws: { error in
            "\(error)".hasPrefix("app \"broken\": ")
        }
    }
}

