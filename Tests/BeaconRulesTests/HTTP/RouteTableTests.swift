@testable import BeaconRulesHTTP
import BeaconRulesService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The one route table is the application's: every row is answered (never 404), and docs/http.md
/// names every row as `METHOD /path`.
@Suite("HTTP route table")
struct RouteTableTests {
    @Test func everyRouteIsAnswered() async throws {
        let rules = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales))
        let console = ConsoleSettings(campaigns: [Paths.campaigns], locales: Paths.locales)
        let app = buildApplication(rules: rules, settings: HTTPSettings(port: 0, console: console), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            for route in RouteTable.routes {
                let path = route.path.replacing(/\{[a-z]+\}/, with: route.path.hasPrefix("/assets/") ? "console.css" : "museum-goodbye")
                try await client.execute(uri: path, method: HTTPRequest.Method(route.method)!, body: ByteBuffer(string: "{}")) { response in
                    #expect(response.status != .notFound, "\(route.method) \(route.path)")
                }
            }
        }
    }

    @Test func theGuideNamesEveryRoute() {
        let guide = Paths.read(Paths.repo("docs/http.md"))
        for route in RouteTable.routes {
            #expect(guide.contains("`\(route.method) \(route.path)`"), "docs/http.md does not name `\(route.method) \(route.path)`")
        }
    }
}
