import BeaconRules
import Foundation
package import Hummingbird

/// `/campaigns/EID`: per trigger, a phone for every language the campaign or `Locales/` provides,
/// each drawn from the record the engine makes for a device of that language; the fallback
/// chain of a device language (`?device=pt-BR`, the default) with the language it lands on and
/// why; the campaign's lint diagnostics at their lines.
package struct CampaignPreviewPage: Sendable {
    package let page: ConsolePage

    package func response(_ snapshot: ConsoleSnapshot, eid: String, request: Request) throws -> Response {
        guard let entry = snapshot.entry(eid: eid) else { throw HTTPError(.notFound, message: "no campaign \"\(eid)\" is loaded") }
        let device = request.uri.queryParameters.get("device").flatMap { $0.isEmpty ? nil : $0 } ?? "pt-BR"
        let campaign = entry.campaign
        let previews = CampaignPreviews(campaign: campaign, locales: snapshot.catalog.locales)
        return page.render(campaign.eid) { h in
            h.raw("<p>")
            if let name = campaign.name { h.text(name); h.raw(" · ") }
            h.raw("<span class=\"status "); let status = CampaignStatus(entry, now: ConsoleApp.now()); h.text(status.rawValue); h.raw("\">"); h.text(status.label)
            h.raw("</span> · trigger "); h.text(campaign.trigger.name); h.raw(" · "); h.text(campaign.actionType.name)
            h.raw(" · <span class=\"muted\">"); h.text(campaign.origin.description); h.raw("</span> · <a href=\""); page.campaignLink(&h, campaign.eid, "/edit"); h.raw("\">Edit</a></p>")
            writeDiagnostics(&h, entry)
            for kind in previews.kinds {
                h.raw("<section class=\"trigger\" id=\"trigger-"); h.text(kind.name); h.raw("\"><h2>On "); h.text(kind.name); h.raw("</h2>")
                writeChain(&h, previews.chain(kind: kind, device: device), device: device)
                let phones = previews.phones(kind: kind)
                h.raw("<div class=\"phones own\">")
                for phone in phones where phone.own { phone.preview.write(to: &h) }
                h.raw("</div>")
                for phone in phones where phone.own { phone.preview.writeJSON(to: &h) }
                let others = phones.filter { !$0.own }
                if !others.isEmpty {
                    h.raw("<details class=\"locales\"><summary>"); h.number(others.count)
                    h.raw(" more languages from Locales/ (the campaign's strings fall back, the buttons are the language's own)</summary><div class=\"phones\">")
                    for phone in others { phone.preview.write(to: &h) }
                    h.raw("</div></details>")
                }
                h.raw("</section>")
            }
        }
    }

    private func writeChain(_ h: inout HTMLWriter, _ chain: CampaignPreviews.Chain, device: String) {
        h.raw("<form class=\"inline\" method=\"get\"><label>Device language<input name=\"device\" value=\""); h.text(device)
        h.raw("\"></label><button>Show its chain</button></form><p class=\"chain\">A <code>"); h.text(device); h.raw("</code> device: ")
        for (i, tag) in chain.tried.enumerated() {
            if i > 0 { h.raw(" → ") }
            h.raw(tag == chain.tried.last && chain.hit != nil ? "<span class=\"hit\">" : "<span>"); h.text(tag); h.raw("</span>")
        }
        h.raw(". ")
        h.text(chain.reason)
        h.raw("</p>")
        chain.preview.write(to: &h)
    }

    private func writeDiagnostics(_ h: inout HTMLWriter, _ entry: ConsoleSnapshot.Entry) {
        guard !entry.diagnostics.isEmpty else { h.raw("<p class=\"muted\">lint: no problems</p>"); return }
        var lines: [String: [Substring]] = [:]
        h.raw("<h2>Lint</h2><ul class=\"diagnostics\">")
        for diagnostic in entry.diagnostics {
            let file = diagnostic.location.file
            if lines[file] == nil {
                lines[file] = (try? String(contentsOfFile: file, encoding: .utf8)).map { $0.split(separator: "\n", omittingEmptySubsequences: false) } ?? []
            }
            h.raw("<li class=\""); h.text(diagnostic.severity.rawValue); h.raw("\"><code>"); h.text(diagnostic.location.description); h.raw("</code> ")
            h.text(diagnostic.severity.rawValue); h.raw(": "); h.text(diagnostic.message)
            let number = diagnostic.location.line
            if let text = lines[file], number >= 1, number <= text.count {
                h.raw("<pre>"); h.number(number); h.raw(" | "); h.text(text[number - 1]); h.raw("</pre>")
            }
            h.raw("</li>")
        }
        h.raw("</ul>")
    }
}
