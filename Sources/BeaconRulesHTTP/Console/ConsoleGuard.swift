import Foundation
import HTTPTypes
package import Hummingbird

/// In front of every console route: with a token (`--token-file`), a request must carry it, as
/// `Authorization: Bearer TOKEN` or as the cookie the login form sets; without it a page
/// redirects to `/login` and anything else is answered 401. Every answer gets the headers that
/// keep a page from running what it did not bring: a Content-Security-Policy without inline
/// script, `nosniff`, no framing, no referrer.
package struct ConsoleGuard<Context: RequestContext>: RouterMiddleware {
    package let token: String?
    /// Where the login form is (`/login`, or `/apps/ID/login`... always the top one).
    package let loginPath: String

    package static var cookieName: String { "beaconrules_console" }

    package static var securityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if isAllowed(request) {
            do { response = try await next(request, context) } catch let error as HTTPError {
                response = Response(status: error.status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: .init(string: (error.body ?? "\(error.status)") + "\n")))
            }
        } else if request.method == .get && !request.uri.path.hasPrefix("/assets/") {
            response = Response(status: .seeOther, headers: [.location: loginPath])
        } else {
            response = Response(status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8", .wwwAuthenticate: "Bearer"], body: .init(byteBuffer: .init(string: "401: this console needs its token (Authorization: Bearer TOKEN, or log in at /login)\n")))
        }
        response.headers[.contentSecurityPolicy] = Self.securityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "no-referrer"
        return response
    }

    /// Whether the request may pass: no token set, the login form or the assets, or the token
    /// presented as a bearer token or the login cookie.
    func isAllowed(_ request: Request) -> Bool {
        guard let token else { return true }
        if request.uri.path == loginPath || request.uri.path.hasPrefix("/assets/") { return true }
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer "),
           Self.same(String(authorization.dropFirst(7)), token) {
            return true
        }
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == Self.cookieName, Self.same(String(parts[1]), token) {
                    return true
                }
            }
        }
        return false
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
