import HTTPTypes
@testable import BeaconRulesHTTP
import BeaconRulesService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The console's pages and guards without a browser: through the application's router.
@Suite("Console routes")
struct ConsoleRoutesTests {
    static func app(campaigns: String = Paths.repo("Campaigns/museum"), token: String? = nil) throws -> (some ApplicationProtocol, ConsoleSettings) {
        let rules = try RulesService(campaigns: [.path(campaigns)], locales: .folder(Paths.locales))
        let console = ConsoleSettings(campaigns: [campaigns], locales: Paths.locales, token: token, maximumBody: 1 << 16)
        return (buildApplication(rules: rules, settings: HTTPSettings(port: 0, console: console), logger: Logger(label: "test")), console)
    }

    @Test func textFromFilesIsEscapedInElementsAndAttributes() {
        var h = HTMLWriter()
        h.raw("<p title=\""); h.text("\"'><img src=x onerror=alert(1)>&"); h.raw("\">")
        #expect(String(decoding: h.bytes, as: UTF8.self) == "<p title=\"&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;\">")
        #expect(HTMLWriter.percentEncoded("a b/\"c") == "a%20b%2F%22c")
    }

    @Test func everyPageCarriesAContentSecurityPolicyWithoutInlineScript() async throws {
        let (app, _) = try Self.app()
        try await app.test(.router) { client in
            for path in ["/", "/campaigns/museum-goodbye", "/translations", "/try", "/results", "/campaigns/museum-goodbye/edit"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "\(path)")
                    #expect(!String(buffer: response.body).contains("<script>"), "\(path)")
                }
            }
        }
    }

    @Test func aPostWithoutTheCSRFTokenIsRefusedAndChangesNothing() async throws {
        let folder = Paths.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.repo("Campaigns/museum"), toPath: folder + "/museum")
        let before = Paths.read(folder + "/museum/01-visit.json")
        let (app, console) = try Self.app(campaigns: folder + "/museum")
        try await app.test(.router) { client in
            try await client.execute(uri: "/campaigns/museum-goodbye/edit", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "text=%5B%5D")) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/campaigns/museum-goodbye/lint", method: .post, body: ByteBuffer(string: "[]")) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/campaigns/museum-goodbye/lint", method: .post, headers: [HTTPField.Name("X-CSRF-Token")!: console.csrf], body: ByteBuffer(string: "[]")) { response in
                #expect(response.status == .ok)
            }
        }
        #expect(Paths.read(folder + "/museum/01-visit.json") == before)
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        let (app, console) = try Self.app()
        try await app.test(.router) { client in
            let huge = "csrf=\(console.csrf)&text=" + String(repeating: "x", count: 1 << 17)
            try await client.execute(uri: "/campaigns/museum-goodbye/edit", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: huge)) { response in
                #expect(response.status == .contentTooLarge)
            }
        }
    }

    @Test func savesStayInsideTheCampaignFolders() throws {
        let folder = Paths.temporaryDirectory()
        let outside = Paths.temporaryDirectory()
        try "[]".write(toFile: outside + "/elsewhere.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.json", withDestinationPath: outside + "/elsewhere.json")
        try "[]".write(toFile: folder + "/inside.json", atomically: true, encoding: .utf8)
        let folders = CampaignFolders(paths: [folder], locales: nil)
        #expect(throws: CampaignFolders.Refusal.self) { try folders.writable(folder + "/link.json") }
        #expect(throws: CampaignFolders.Refusal.self) { try folders.writable(folder + "/../" + (outside as NSString).lastPathComponent + "/elsewhere.json") }
        #expect(throws: CampaignFolders.Refusal.self) { try folders.writable(folder + "/campaigns.xml") }
        let inside = try folders.writable(folder + "/inside.json")
        try folders.write(Array("[ ]".utf8), to: inside)
        #expect(Paths.read(folder + "/inside.json") == "[ ]")
        #expect(Paths.read(outside + "/elsewhere.json") == "[]")
    }

    @Test func theTranslationsCSVHasOneRowAString() async throws {
        let (app, _) = try Self.app()
        try await app.test(.router) { client in
            try await client.execute(uri: "/translations.csv", method: .get) { response in
                let lines = String(buffer: response.body).components(separatedBy: "\r\n")
                #expect(lines[0] == "campaign,trigger,language,field,text")
                #expect(lines.contains("museum-goodbye,onExit,de,okButtonTitle,Teilen"))
                #expect(lines.contains("museum-goodbye,onExit,fr,okButtonTitle,"))
                #expect(lines.contains("museum-goodbye,onExit,fr,title,Merci de votre visite !"))
            }
        }
    }

    @Test func aPtBRDeviceSeesItsFallbackChain() async throws {
        let (app, _) = try Self.app()
        try await app.test(.router) { client in
            try await client.execute(uri: "/campaigns/museum-goodbye?device=pt-BR", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("A <code>pt-BR</code> device"))
                #expect(page.contains("pt-br"))
                #expect(page.contains("Tap: opens https://museum.example/share"))
            }
        }
    }

    @Test func withATokenARequestWithoutItIsRefused() async throws {
        let (app, _) = try Self.app(token: "0123456789abcdef0123")
        try await app.test(.router) { client in
            try await client.execute(uri: "/translations", method: .get) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/translations", method: .get, headers: [.cookie: "beaconrules_console=0123456789abcdef0123"]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/login", method: .post, body: ByteBuffer(string: "token=0123456789abcdef0123")) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.setCookie]?.contains("HttpOnly; SameSite=Strict") == true)
            }
        }
    }
}
