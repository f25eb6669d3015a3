import BeaconRules
import BeaconRulesHTTP
import BeaconRulesService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The Sensorberg resolver's protocol on `beaconrules http`: the resolver's own end-to-end cases
/// (resolver-e2e's LayoutTest: an unknown key gives 204, a key gives its layout) on our files,
/// the ETag, the `X-pid` filter, and the SDK's history posted to `POST /layout`.
@Suite("Sensorberg resolver: GET and POST /layout")
struct ResolverTests {
    static let key = AppsHTTPTests.museumKey
    static let entrance = AppsHTTPTests.entrance
    static let iid = ResolverRoutes.installation

    static func headers(iid: String? = nil, key: String = key) -> HTTPFields {
        var fields: HTTPFields = [AppKey.header: key]
        if let iid { fields[Self.iid] = iid }
        return fields
    }

    @Test func anUnknownKeyGets204AsTheResolversE2ETestExpects() async throws {
        try await AppsHTTPTests.app().test(.router) { client in
            try await client.execute(uri: "/layout", method: .get, headers: [AppKey.header: "wrongApiKey"]) { response in
                #expect(response.status == .noContent)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test func aKeyGetsItsAppsCampaignsAsASensorbergLayout() async throws {
        try await AppsHTTPTests.app().test(.router) { client in
            try await client.execute(uri: "/layout", method: .get, headers: Self.headers()) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                let layout = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as! [String: Any]
                #expect(layout["accountProximityUUIDs"] as? [String] == ["b9407f30f5f8466eaff925556b57fe6d"])
                #expect(layout["currentVersion"] as? Bool == false)
                let actions = layout["actions"] as! [[String: Any]]
                #expect(actions.map { $0["eid"] as! String } == ["museum-welcome", "museum-goodbye", "museum-night-tour", "museum-audio-guide", "shop-coupon", "cafe-happy-hour", "visit-counter"])
                let welcome = actions[0]
                for field in ["eid", "trigger", "beacons", "suppressionTime", "content", "type", "typeString", "timeframes", "sendOnlyOnce", "delay"] {
                    #expect(welcome[field] != nil, "museum-welcome has no \(field)")
                }
                #expect(welcome["trigger"] as? Int == 1)
                #expect(welcome["suppressionTime"] as? Int == 3600)
                #expect(actions[2]["deliverAt"] as? String == "2026-06-05T18:00:00Z")
                #expect(actions[4]["typeString"] as? String == "notification")
                #expect(actions[4]["trigger"] as? Int == 1)
            }
        }
    }

    @Test func theCurrentETagIsAnswered304AndAnotherOneTheLayout() async throws {
        try await AppsHTTPTests.app().test(.router) { client in
            let etag = try await client.execute(uri: "/layout", method: .get, headers: Self.headers()) { try #require($0.headers[.eTag]) }
            var current = Self.headers()
            current[.ifNoneMatch] = etag
            try await client.execute(uri: "/layout", method: .get, headers: current) { response in
                #expect(response.status == .notModified)
                #expect(response.headers[.eTag] == etag)
            }
            var stale = Self.headers()
            stale[.ifNoneMatch] = "\"0000000000000000\""
            try await client.execute(uri: "/layout", method: .get, headers: stale) { #expect($0.status == .ok) }
            // Another app's layout has another tag.
            let gallery = try await client.execute(uri: "/layout", method: .get, headers: Self.headers(key: AppsHTTPTests.galleryKey)) { $0.headers[.eTag] }
            #expect(gallery != etag)
        }
    }

    /// The whole layout is kept between fetches (`LayoutCache`) and written again on a reload:
    /// the same bytes and tag until then, the reloaded campaigns after.
    @Test func theLayoutIsTheSameUntilAReloadAndTheReloadedOneAfter() async throws {
        let apps = try AppsHTTPTests.apps()
        try await buildApplication(apps: apps, settings: HTTPSettings(port: 0), logger: Logger(label: "test")).test(.router) { client in
            func fetch() async throws -> (etag: String?, body: String) {
                try await client.execute(uri: "/layout", method: .get, headers: Self.headers()) { ($0.headers[.eTag], String(buffer: $0.body)) }
            }
            let first = try await fetch()
            let again = try await fetch()
            #expect(again.etag == first.etag)
            #expect(again.body == first.body)
            #expect(first.body.contains("shop-coupon"))
            let museum = try #require(apps.app(id: "museum"))
            try await museum.rules.reload(campaigns: [.path(Paths.repo("Campaigns/museum/01-visit.json"))], locales: .folder(Paths.locales))
            let reloaded = try await fetch()
            #expect(reloaded.etag != first.etag)
            #expect(reloaded.body.contains("museum-goodbye"))
            #expect(!reloaded.body.contains("shop-coupon"))
        }
    }

    @Test func xPidKeepsOnlyTheActionsOfThatBeacon() async throws {
        try await AppsHTTPTests.app().test(.router) { client in
            var headers = Self.headers()
            headers[ResolverRoutes.beacon] = "b9407f30f5f8466eaff925556b57fe6d0010000003"
            try await client.execute(uri: "/layout", method: .get, headers: headers) { response in
                let layout = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as! [String: Any]
                #expect((layout["actions"] as! [[String: Any]]).map { $0["eid"] as! String } == ["shop-coupon", "visit-counter"])
            }
            headers[ResolverRoutes.beacon] = "not-a-pid"
            try await client.execute(uri: "/layout", method: .get, headers: headers) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("X-pid"))
            }
        }
    }

    @Test func theLayoutReadBackDecidesTheMuseumTraceByteForByte() throws {
        let catalog = try RulesCatalog(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        let file = Paths.temporaryDirectory() + "/layout.json"
        try Data(SensorbergLayout(campaigns: catalog.campaigns).bytes).write(to: URL(fileURLWithPath: file))
        let replay = try CommandRunner.run(["replay", "--campaigns", file, "Tests/Fixtures/museum-day.jsonl"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }

    /// 1,000 events from 50 installations, each posting its 20 as one history.
    static func histories() -> [(iid: String, body: String)] {
        (0..<50).map { installation in
            let events = (0..<20).map { i in
                let minutes = installation + i * 37
                let beacon = "b9407f30f5f8466eaff925556b57fe6d001000000\(1 + (installation + i) % 4)"
                let time = String(format: "2026-06-05T%02d:%02d:00.000+0200", 9 + minutes / 60, minutes % 60)
                return #"{"pid":"\#(beacon)","dt":"\#(time)","trigger":\#(i % 2 + 1),"location":"u33db"}"#
            }
            return ("iid-\(installation)", #"{"deviceTimestamp":"2026-06-05T22:00:00.000+0200","events":[\#(events.joined(separator: ","))],"actions":[]}"#)
        }
    }

    @Test func aHistoryOf1000EventsFrom50InstallationsSentTwiceGivesOneSetOfRecords() async throws {
        let twice = try AppsHTTPTests.app()
        let once = try AppsHTTPTests.app()
        // A later visit by every installation: what it gets shows the state the histories left.
        let probes = (0..<50).map { AppsHTTPTests.enter(id: "probe-\($0)", device: "iid-\($0)", time: "2026-06-06T10:00:00+02:00") }
        let counts = try await twice.test(.router) { client in
            var counts: [[String]] = []
            for _ in 0..<2 {
                var round: [String] = []
                for history in Self.histories() {
                    let records = try await client.execute(uri: "/layout", method: .post, headers: Self.headers(iid: history.iid), body: ByteBuffer(string: history.body)) { response in
                        #expect(response.status == .ok)
                        #expect(response.headers[ResolverRoutes.rejected] == "0")
                        return response.headers[ResolverRoutes.records] ?? ""
                    }
                    round.append(records)
                }
                counts.append(round)
            }
            let afterTwice = try await Self.post(probes, client)
            try await once.test(.router) { client in
                for history in Self.histories() {
                    try await client.execute(uri: "/layout", method: .post, headers: Self.headers(iid: history.iid), body: ByteBuffer(string: history.body)) { #expect($0.status == .ok) }
                }
                #expect(try await Self.post(probes, client) == afterTwice)
            }
            return counts
        }
        #expect(counts[0] == counts[1])
        #expect(counts[0].compactMap(Int.init).reduce(0, +) > 0)
    }

    static func post(_ lines: [String], _ client: some TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/events", method: .post, headers: [AppKey.header: key, .contentType: "application/x-ndjson"], body: ByteBuffer(string: lines.joined(separator: "\n") + "\n")) {
            String(buffer: $0.body)
        }
    }

    @Test func aHistoryWithAMalformedDateIs400NamingIt() async throws {
        let body = """
            {"deviceTimestamp":"2026-06-05T22:00:00.000+0200","events":[
              {"pid":"\(Self.entrance)","dt":"2026-06-05T10:00:00.000+0200","trigger":1},
              {"pid":"\(Self.entrance)","dt":"2026-06-05 at ten","trigger":2}]}
            """
        try await AppsHTTPTests.app().test(.router) { client in
            try await client.execute(uri: "/layout", method: .post, headers: Self.headers(iid: "iid-1"), body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                let text = String(buffer: response.body)
                #expect(text.contains("events[1].dt at line 3, column"), "\(text)")
                #expect(text.contains(#"found \"2026-06-05 at ten\""#), "\(text)")
            }
            // Nothing of a refused history was kept: the enter is new.
            let records = try await Self.post([AppsHTTPTests.enter(id: "e-1", device: "iid-1")], client)
            #expect(records.contains("museum-welcome"))
        }
    }

    @Test func anActionThePhoneShowedHoldsSuppressionHere() async throws {
        let history = #"{"actions":[{"eid":"museum-welcome","pid":"\#(Self.entrance)","dt":"2026-06-05T09:55:00.000+0200","trigger":1}]}"#
        try await AppsHTTPTests.app().test(.router) { client in
            try await client.execute(uri: "/layout", method: .post, headers: Self.headers(iid: "iid-7"), body: ByteBuffer(string: history)) { #expect($0.status == .ok) }
            // museum-welcome is suppressed for an hour after 09:55; an hour later it fires again.
            let soon = try await Self.post([AppsHTTPTests.enter(id: "e-1", device: "iid-7", time: "2026-06-05T10:00:00+02:00")], client)
            let later = try await Self.post([AppsHTTPTests.enter(id: "e-2", device: "iid-7", time: "2026-06-05T11:00:00+02:00")], client)
            #expect(!soon.contains("museum-welcome"))
            #expect(later.contains("museum-welcome"))
        }
    }

    @Test func aConversionIsAResponseToTheRecordItsEventMade() async throws {
        let history = """
            {"events":[{"pid":"\(Self.entrance)","dt":"2026-06-05T10:00:00.000+0200","trigger":1}],
             "conversions":[{"action":"museum-welcome","dt":"2026-06-05T10:00:30.000+0200","type":1},
                            {"action":"museum-goodbye","dt":"2026-06-05T10:00:30.000+0200","type":1},
                            {"action":"museum-welcome","dt":"2026-06-05T10:00:40.000+0200","type":-2}]}
            """
        try await AppsHTTPTests.app().test(.router) { client in
            try await client.execute(uri: "/layout", method: .post, headers: Self.headers(iid: "iid-9"), body: ByteBuffer(string: history)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[ResolverRoutes.rejected] == "0")
            }
            // The open is in the ledger: the same response sent over /responses is answered as one.
            let open = #"{"type":"response","device":"iid-9","notification":"museum-welcome:iid-9:sdk:iid-9:\#(Self.entrance):1780646400000:1","action":"present","time":"2026-06-05T10:01:00+02:00"}"#
            try await client.execute(uri: "/responses", method: .post, headers: Self.headers(), body: ByteBuffer(string: open)) { #expect($0.status == .ok) }
        }
    }

    /// resolver-e2e's fullLayoutTripTest on our files: the layout for its key holds its reference
    /// layout (`sameJSONAs(reference).allowingExtraUnexpectedFields().allowingAnyArrayOrdering()`),
    /// dates compared as instants.
    @Test func theResolversFullLayoutTripReferenceIsWhatItsKeyGets() async throws {
        let reference = Paths.sensorberg + "/resolver/referenceFullLayoutTrip.json"
        let key = "8a60185c54446c807a5383bf3ec5acc33dab3537ed011d10973e667f8836e998"
        let apps = try RulesApps(definitions: [AppDefinition(id: "e2e", keys: [key], campaigns: [reference])])
        let app = buildApplication(apps: apps, settings: HTTPSettings(port: 0), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/layout", method: .get, headers: [AppKey.header: key]) { response in
                #expect(response.status == .ok)
                let actual = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))
                let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reference)))
                #expect(Self.holds(actual, expected), "\(String(buffer: response.body))")
            }
        }
    }

    /// Whether `actual` has everything `expected` has: objects may have more members, arrays may
    /// be in any order, strings that are both dates are the same instant.
    static func holds(_ actual: Any, _ expected: Any) -> Bool {
        switch (actual, expected) {
        case (let a as [String: Any], let e as [String: Any]):
            return e.allSatisfy { key, value in
                if value is NSNull { return a[key] == nil || a[key] is NSNull }
                return a[key].map { holds($0, value) } ?? false
            }
        case (let a as [Any], let e as [Any]):
            return a.count == e.count && e.allSatisfy { value in a.contains { holds($0, value) } }
        case (let a as String, let e as String):
            if a == e { return true }
            guard let x = instant(a), let y = instant(e) else { return false }
            return x == y
        case (let a as NSNumber, let e as NSNumber):
            return a == e
        default:
            return false
        }
    }

    static func instant(_ text: String) -> Int64? {
        if case .time(let time, _) = Timestamp.parseRFC3339(text) { return time.milliseconds }
        return nil
    }
}
