@testable import BeaconRulesStore
import Foundation
import NIOCore
import Testing

/// `serve --apps` over loopback against the real binary: two apps side by side on one port, every
/// line naming its app; each app decides, remembers and is reloaded as if it ran alone.
@Suite("serve --apps")
struct ServeAppsTests {
    let directory = Paths.temporaryDirectory()
    static let entrance = "b9407f30f5f8466eaff925556b57fe6d0010000001"

    static func enter(_ app: String?, id: String, device: String = "anna", time: String = "2026-06-05T10:00:00+02:00") -> String {
        let event = #"{"id":"\#(id)","device":"\#(device)","type":"enter","beacon":"\#(entrance)","time":"\#(time)"}"#
        return app.map { AppsTrace.tag(event, $0) } ?? event
    }

    /// The same devices, event ids and beacons sent to both apps, interleaved line by line on
    /// one connection: each app answers exactly as a replay of its own campaigns alone, and keeps
    /// only its own rows (so neither app's line changed the other's suppression or answers).
    @Test(arguments: [false, true])
    func eachAppAnswersAsItsOwnReplayAloneWithTheOtherInterleaved(stateFile: Bool) async throws {
        let lines = MuseumTrace.interleave(MuseumTrace.devices(6, events: 30, prefix: "apps"))
        let expected = try AppsTrace.expected(lines, directory: directory)
        let state = directory + "/apps.db"
        let server = try await ServerProcess.start(["--apps", AppsTrace.file] + (stateFile ? ["--state", state] : []))
        let replies = try await LineClient.exchange(port: server.port, lines: AppsTrace.bothApps(lines))
        await server.stop()
        try #require(replies.count == 2 * lines.count)
        #expect(replies.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) == expected.museum)
        #expect(replies.enumerated().filter { $0.offset % 2 == 1 }.map(\.element) == expected.gallery)
        #expect(expected.gallery.contains { $0.contains("gallery-hello") })
        #expect(expected.museum.contains { $0.contains("museum-welcome") })
        guard stateFile else { return }
        #expect(try AppsTrace.snapshot(state, app: "museum") == snapshot(directory + "/museum.db"))
        #expect(try AppsTrace.snapshot(state, app: "gallery") == snapshot(directory + "/gallery.db"))
    }

    @Test func aRestartKeepsEachAppsStateResendsAreAnsweredAsBeforeAndSuppressionHolds() async throws {
        let state = directory + "/apps.db"
        var server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", state])
        let first = try await LineClient.exchange(port: server.port, lines: [Self.enter("museum", id: "e-1"), Self.enter("gallery", id: "e-1")])
        await server.stop()
        #expect(first[0].contains("museum-welcome:anna:e-1") && !first[0].contains("gallery"))
        #expect(first[1].contains("gallery-hello:anna:e-1") && !first[1].contains("museum"))

        server = try await ServerProcess.start(["--apps", AppsTrace.file, "--state", state])
        let later = "2026-06-05T10:05:00+02:00"
        let after = try await LineClient.exchange(port: server.port, lines: [
            Self.enter("gallery", id: "e-1"), Self.enter("museum", id: "e-1"),
            // Five minutes later: within the gallery campaign's 600 s of suppression.
            Self.enter("gallery", id: "e-2", time: later),
            // Another device of the gallery: its own state, not suppressed.
            Self.enter("gallery", id: "e-3", device: "ben", time: later),
        ])
        await server.stop()
        #expect(after[0] == first[1])
        #expect(after[1] == first[0])
        #expect(after[2] == #"{"ok":true,"event":"e-2","records":[]}"#)
        #expect(after[3].contains("gallery-hello:ben:e-3"))
    }

    /// Every kind of line that names no app of the file gets an error that says what was
    /// expected, in its place; the good lines around it are answered as ever.
    @Test func linesNamingNoAppAreRefusedInTheirPlaceAndCostNoGoodLine() async throws {
        let event = Self.enter(nil, id: "h-1")
        let body = event.dropFirst()
        let lines = [
            Self.enter("museum", id: "h-0"),
            event,
            AppsTrace.tag(event, "cafe"),
            #"{"app":42,"# + body,
            #"{"app":"../../etc/passwd\u0000\n","# + body,
            #"{"app":""# + String(repeating: "x", count: 10_000) + #"","# + body,
            #"{"app":null,"# + body,
            "not json at all",
            "[\"museum\"]",
            "",
            #"{"app":"Museum","# + body,
            #"{"app":"gallery","device":"anna"}"#,
            Self.enter("gallery", id: "h-2"),
        ]
        let server = try await ServerProcess.start(["--apps", AppsTrace.file])
        let replies = try await LineClient.exchange(port: server.port, lines: lines)
        await server.stop()
        try #require(replies.count == lines.count)
        func error(_ index: Int) -> String? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(replies[index].utf8)) as? [String: Any],
                  object["ok"] as? Bool == false, object["line"] as? Int == index + 1 else { return nil }
            return object["error"] as? String
        }
        #expect(replies[0].contains("museum-welcome:anna:h-0"))
        #expect(error(1)?.hasPrefix(#"missing `app` (a string): with --apps every line names its app, one of "museum", "gallery""#) == true, "\(replies[1])")
        #expect(error(2) == #"unknown app "cafe": the apps file has "museum", "gallery""#)
        #expect(error(3)?.hasPrefix("missing `app` (a string)") == true)
        #expect(error(4)?.hasPrefix("unknown app \"../../etc/passwd\u{0}\n\"") == true, "\(replies[4])")
        #expect(error(5) == "unknown app \"" + String(repeating: "x", count: 64) + #"...": the apps file has "museum", "gallery""#)
        #expect(error(6)?.hasPrefix("missing `app` (a string)") == true)
        #expect(error(7)?.hasPrefix("not a JSON object with an `app` member") == true)
        #expect(error(8)?.hasPrefix("not a JSON object with an `app` member") == true)
        #expect(error(9) == "blank line; expected one JSON event object")
        #expect(error(10)?.hasPrefix(#"unknown app "Museum""#) == true, "app ids are compared exactly")
        #expect(error(11)?.contains("missing field `type`") == true, "\(replies[11])")
        #expect(replies[12].contains("gallery-hello:anna:h-2"))
        // One reply line per line: a hostile id never breaks the reply's JSON.
        #expect(replies.allSatisfy { !$0.contains("\n") })
    }

    @Test func aLineOverTheLimitIsAnsweredAsWithoutApps() async throws {
        let long = AppsTrace.tag(padded(Self.enter(nil, id: "l-1"), to: 64 * 1024 + 1), "museum")
        let server = try await ServerProcess.start(["--apps", AppsTrace.file])
        let replies = try await LineClient.exchange(port: server.port, lines: [long, Self.enter("museum", id: "l-2")])
        await server.stop()
        #expect(replies.first == #"{"ok":false,"line":1,"error":"line longer than 65536 bytes; skipped up to its newline"}"#)
        #expect(replies.last?.contains("museum-welcome:anna:l-2") == true)
    }

    @Test func sighupReloadsEveryAppAndAnAppWhoseFilesBreakKeepsItsSetAndIsNamed() async throws {
        let files = FileManager.default
        try files.copyItem(atPath: Paths.campaigns, toPath: directory + "/museum")
        try files.copyItem(atPath: AppsTrace.galleryCampaigns, toPath: directory + "/gallery")
        try #"""
            {"apps": [
              {"id": "museum", "keys": ["m"], "campaigns": ["museum"], "locales": "\#(Paths.locales)"},
              {"id": "gallery", "keys": ["g"], "campaigns": ["gallery"], "locales": "\#(Paths.locales)"}
            ]}
            """#.write(toFile: directory + "/apps.json", atomically: true, encoding: .utf8)
        try await ServerProcess.with(["--apps", directory + "/apps.json", "--state", directory + "/apps.db"]) { server in
            let extra = #"{"eid":"museum-extra","trigger":1,"type":1,"beacons":["\#(Self.entrance)"],"content":{"subject":"New","body":"A new campaign."}}"#
            try extra.write(toFile: directory + "/museum/museum/04-extra.json", atomically: true, encoding: .utf8)
            try "{ broken".write(toFile: directory + "/gallery/campaigns.json", atomically: true, encoding: .utf8)
            server.signal(SIGHUP)
            #expect(await server.waitForLog("reload failed; the app's loaded campaigns stay"))
            #expect(await server.waitForLog("reloaded"))
            let replies = try await LineClient.exchange(port: server.port, lines: [Self.enter("museum", id: "r-1"), Self.enter("gallery", id: "r-1")])
            #expect(replies[0].contains("museum-extra"))
            #expect(replies[1].contains("gallery-hello"))
            let failure = try #require(server.log.split(separator: "\n").first { $0.contains("reload failed") })
            #expect(failure.contains("app=gallery"), "\(failure)")
            #expect(!server.log.split(separator: "\n").contains { $0.contains("reload failed") && $0.contains("app=museum") })
        }
    }

    @Test func eachAppsMetricsCarryItsLabelAndLinesNamingNoAppAreCountedApart() async throws {
        try await ServerProcess.with(["--apps", AppsTrace.file, "--metrics-port", "0"]) { server in
            let metricsPort = try #require(await server.printedPort("metrics on"))
            _ = try await LineClient.exchange(port: server.port, lines: [Self.enter("gallery", id: "m-1"), Self.enter(nil, id: "m-2"), "{}"])
            let metrics = try HTTPFrontTests.curl(["-sS", "127.0.0.1:\(metricsPort)/metrics"])
            #expect(metrics.contains(#"beaconrules_events_total{app="gallery"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"beaconrules_events_total{app="museum"} 0"#), "\(metrics)")
            #expect(metrics.contains(#"beaconrules_lines_rejected_total{app="",reason="invalid_line"} 2"#), "\(metrics)")
            #expect(try HTTPFrontTests.curl(["-sS", "127.0.0.1:\(metricsPort)/ready"]) == "ready\n")
        }
    }

    @Test func campaignsOrLocalesBesideAnAppsFileAreRefused() throws {
        let result = try CommandRunner.run(["serve", "--port", "0", "--apps", AppsTrace.file, "--campaigns", "Campaigns"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--apps gives each app its campaigns and locales"))
        let broken = directory + "/broken.json"
        try #"{"apps": [{"id": "museum", "keys": ["m"], "campaigns": ["missing-folder"]}]}"#.write(toFile: broken, atomically: true, encoding: .utf8)
        let missing = try CommandRunner.run(["serve", "--port", "0", "--apps", broken])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains(#"app "museum": "#), "\(missing.stderr)")
    }
}
