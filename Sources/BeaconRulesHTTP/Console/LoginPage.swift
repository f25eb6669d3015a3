package import Hummingbird
import NIOCore

/// `/login`: the form that trades the console's token for a cookie (HttpOnly, SameSite=Strict),
/// for people with a browser rather than an `Authorization` header.
package struct LoginPage: Sendable {
    package let settings: ConsoleSettings

    package func form(failed: Bool) -> Response {
        ConsolePage(base: "", csrf: settings.csrf, app: nil).render("Log in", status: failed ? .unauthorized : .ok) { h in
            if failed { h.raw("<div class=\"notice refused\">That is not this console's token.</div>") }
            if settings.token == nil { h.raw("<p class=\"muted\">This console needs no token (it listens on loopback only).</p>") }
            h.raw("<form method=\"post\" action=\"/login\"><label>Token <input type=\"password\" name=\"token\" autocomplete=\"current-password\"></label> <button>Log in</button></form>")
        }
    }

    package func submit(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 4096)
        let given = ConsoleForm.decode(String(buffer: body))["token"] ?? ""
        guard let token = settings.token else { return Response(status: .seeOther, headers: [.location: "/"]) }
        guard ConsoleGuard<BasicRequestContext>.same(given, token) else { return form(failed: true) }
        return Response(status: .seeOther, headers: [
            .location: "/",
            .setCookie: "\(ConsoleGuard<BasicRequestContext>.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict",
        ])
    }
}
