package import Hummingbird
import NIOCore

/// The frame of every console page: the head (the project's own stylesheet and script, served
/// from `/assets/`, never inline), the navigation, and the CSRF token the forms and the script
/// send back with each POST.
package struct ConsolePage: Sendable {
    /// The path the app's pages are under: empty without an apps file, `/apps/ID` with one.
    package let base: String
    /// The token every POST carries (`csrf` field or `X-CSRF-Token` header).
    package let csrf: String
    /// The app's id, shown when several apps are served.
    package let app: String?

    /// An HTML page: `title` in the head and as its heading, `body` written after the navigation.
    package func render(_ title: String, status: HTTPResponse.Status = .ok, body: (inout HTMLWriter) -> Void) -> Response {
        var h = HTMLWriter()
        h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        h.raw("<meta name=\"csrf-token\" content=\""); h.text(csrf); h.raw("\">")
        h.raw("<title>"); h.text(title); h.raw(" · BeaconRules console</title>")
        h.raw("<link rel=\"stylesheet\" href=\"/assets/console.css\"><script src=\"/assets/console.js\" defer></script></head><body>")
        h.raw("<nav><a class=\"brand\" href=\""); link(&h, "/"); h.raw("\">BeaconRules</a>")
        if let app { h.raw("<span class=\"app\">"); h.text(app); h.raw("</span>") }
        h.raw("<a href=\""); link(&h, "/"); h.raw("\">Campaigns</a>")
        h.raw("<a href=\""); link(&h, "/translations"); h.raw("\">Translations</a>")
        h.raw("<a href=\""); link(&h, "/try"); h.raw("\">Try</a>")
        h.raw("<a href=\""); link(&h, "/results"); h.raw("\">Results</a></nav><main><h1>")
        h.text(title)
        h.raw("</h1>")
        body(&h)
        h.raw("</main></body></html>\n")
        return Self.html(h.bytes, status: status)
    }

    /// `base + path`, escaped, for an `href` or `action`.
    package func link(_ h: inout HTMLWriter, _ path: String) {
        h.text(base + (path == "/" && !base.isEmpty ? "/" : path))
    }

    /// The link to a campaign's page (`/campaigns/EID` plus `suffix`), the eid percent-encoded.
    package func campaignLink(_ h: inout HTMLWriter, _ eid: String, _ suffix: String = "") {
        h.text(base + "/campaigns/"); h.pathSegment(eid); h.text(suffix)
    }

    /// The hidden CSRF field of a form.
    package func csrfField(_ h: inout HTMLWriter) {
        h.raw("<input type=\"hidden\" name=\"csrf\" value=\""); h.text(csrf); h.raw("\">")
    }

    package static func html(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
