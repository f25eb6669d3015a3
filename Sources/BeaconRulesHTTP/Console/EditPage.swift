import BeaconRules
import Foundation
package import Hummingbird
import NIOCore

/// `/campaigns/EID/edit`: the campaign's file in a textarea, linted as you type (the script posts
/// the text to `/campaigns/EID/lint`, answered with lint's diagnostics, did-you-mean included);
/// a save writes the file atomically inside the campaign folders and reloads the service, or is
/// refused with its errors while the old set keeps serving.
package struct EditPage: Sendable {
    package let page: ConsolePage

    package func form(_ snapshot: ConsoleSnapshot, eid: String) throws -> Response {
        let campaign = try Self.campaign(snapshot, eid)
        guard let text = try? String(contentsOfFile: campaign.origin.file, encoding: .utf8) else {
            throw HTTPError(.notFound, message: "\(campaign.origin.file): cannot read the campaign's file")
        }
        let diagnostics = ConsoleApp.lint(text, as: campaign.origin.file, locales: snapshot.catalog.locales)
        return render(campaign, text: text, diagnostics: diagnostics, notice: nil)
    }

    package func save(_ app: ConsoleApp, eid: String, request: Request, limit: Int) async throws -> Response {
        let form = try await ConsoleForm.read(request, limit: limit, csrf: page.csrf)
        let text = form["text"] ?? ""
        switch await app.save(eid: eid, text: text) {
        case .saved(let file, let warnings):
            let snapshot = await app.snapshot()
            let campaign = try snapshot.entry(eid: eid)?.campaign ?? Self.campaign(snapshot, eid)
            return render(campaign, text: text, diagnostics: warnings, notice: (false, ["Saved \(file) and reloaded: \(snapshot.entries.count) campaigns serve from now on."]))
        case .refused(let errors):
            let snapshot = await app.snapshot()
            let campaign = try Self.campaign(snapshot, eid)
            let diagnostics = ConsoleApp.lint(text, as: campaign.origin.file, locales: snapshot.catalog.locales)
            return render(campaign, text: text, diagnostics: diagnostics, notice: (true, ["Not saved: the loaded campaigns keep serving."] + errors), status: .unprocessableContent)
        }
    }

    /// The script's lint: the body is the text; the answer `{"diagnostics":[{severity, line, column, message}]}`.
    package func lint(_ app: ConsoleApp, eid: String, request: Request, limit: Int) async throws -> Response {
        try ConsoleForm.checkHeader(request, csrf: page.csrf)
        let body = try await request.body.collect(upTo: limit)
        let snapshot = await app.snapshot()
        let campaign = try Self.campaign(snapshot, eid)
        let found = ConsoleApp.lint(String(buffer: body), as: campaign.origin.file, locales: snapshot.catalog.locales)
        var w = JSONWriter(capacity: 1024)
        w.raw("{\"diagnostics\":[")
        for (i, d) in found.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"severity\":"); w.string(d.severity.rawValue)
            w.raw(",\"line\":"); w.integer(Int64(d.location.line))
            w.raw(",\"column\":"); if let column = d.location.column { w.integer(Int64(column)) } else { w.raw("null") }
            w.raw(",\"message\":"); w.string(d.message)
            w.raw("}")
        }
        w.raw("]}\n")
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: w.bytes)))
    }

    private func render(_ campaign: Campaign, text: String, diagnostics: [Diagnostic], notice: (refused: Bool, lines: [String])?, status: HTTPResponse.Status = .ok) -> Response {
        page.render("Edit " + campaign.eid, status: status) { h in
            if let notice {
                h.raw(notice.refused ? "<div class=\"notice refused\" id=\"notice\">" : "<div class=\"notice\" id=\"notice\">")
                for (i, line) in notice.lines.enumerated() { if i > 0 { h.raw("<br>") }; h.text(line) }
                h.raw("</div>")
            }
            h.raw("<p class=\"muted\">"); h.text(campaign.origin.file); h.raw(" (the whole file; the campaign starts at line "); h.number(campaign.origin.line)
            h.raw(") · <a href=\""); page.campaignLink(&h, campaign.eid); h.raw("\">Preview</a></p>")
            h.raw("<form method=\"post\" action=\""); page.campaignLink(&h, campaign.eid, "/edit"); h.raw("\">"); page.csrfField(&h)
            h.raw("<textarea id=\"editor\" name=\"text\" spellcheck=\"false\" data-lint=\""); page.campaignLink(&h, campaign.eid, "/lint"); h.raw("\">")
            h.text(text)
            h.raw("</textarea><h2>Lint</h2><ul class=\"diagnostics\" id=\"diagnostics\">")
            if diagnostics.isEmpty { h.raw("<li class=\"muted\">no problems</li>") }
            for d in diagnostics {
                h.raw("<li class=\""); h.text(d.severity.rawValue); h.raw("\">"); h.number(d.location.line); h.raw(":")
                if let column = d.location.column { h.number(column) }
                h.raw(" "); h.text(d.severity.rawValue); h.raw(": "); h.text(d.message); h.raw("</li>")
            }
            h.raw("</ul><button id=\"save\">Save and reload</button></form>")
        }
    }

    private static func campaign(_ snapshot: ConsoleSnapshot, _ eid: String) throws -> Campaign {
        guard let entry = snapshot.entry(eid: eid) else { throw HTTPError(.notFound, message: "no campaign \"\(eid)\" is loaded") }
        return entry.campaign
    }
}
