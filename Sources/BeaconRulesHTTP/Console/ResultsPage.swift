import BeaconRules
import BeaconRulesService
import BeaconRulesTimeline
import Foundation
package import Hummingbird

/// `/results`: with `--state`, each campaign's funnel by language from the delivery ledger
/// (`beaconrules report`'s: delivered, presented, opened, clicked, dismissed, clicks by action) as
/// bars; and a trace uploaded here (JSON lines of events or sightings) drawn as its timeline
/// (`beaconrules timeline`'s SVG), replayed against the loaded campaigns without state.
package struct ResultsPage: Sendable {
    package let page: ConsolePage
    package let hasState: Bool

    package func upload(_ app: ConsoleApp, request: Request, limit: Int) async throws -> Response {
        let form = try await ConsoleForm.read(request, limit: limit, csrf: page.csrf)
        let trace = form["trace"] ?? ""
        let snapshot = await app.snapshot()
        let catalog = snapshot.catalog
        var rejected: [String] = []
        let timeline = Timeline.replaying(
            title: form.filename("trace") ?? "uploaded trace", campaigns: catalog.campaigns, locales: catalog.locales,
            settings: RulesService.defaultPresence(for: catalog.campaigns)
        ) { (add: (InputEvent) throws(EventError) -> Void) in
            for (number, line) in trace.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let text = line.hasSuffix("\r") ? line.dropLast() : line
                if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                do {
                    let input = try Array(text.utf8).withUnsafeBufferPointer { buffer throws(EventError) in
                        try EventParser.parsePresenceInput(line: buffer, fallbackID: "upload:\(number + 1)")
                    }
                    try add(input)
                } catch {
                    rejected.append("line \(number + 1): \(error)")
                }
            }
        }
        return await response(app, timeline: (timeline.svg(), rejected))
    }

    package func response(_ app: ConsoleApp, timeline: (svg: String, rejected: [String])?) async -> Response {
        let funnels = hasState ? await app.rules.funnels() : []
        return page.render("Results") { h in
            h.raw("<h2>Funnels</h2>")
            if !hasState {
                h.raw("<p class=\"muted\">Start the console with --state to see each campaign's funnel from the delivery ledger.</p>")
            } else if funnels.isEmpty {
                h.raw("<p class=\"muted\">The state has no deliveries yet.</p>")
            } else {
                writeFunnels(&h, funnels)
            }
            h.raw("<h2>Timeline of a trace</h2><form method=\"post\" enctype=\"multipart/form-data\" action=\""); page.link(&h, "/results"); h.raw("\">")
            page.csrfField(&h)
            h.raw("<input type=\"file\" name=\"trace\" accept=\".jsonl,.json,.txt\"> <button>Draw</button></form>")
            if let timeline {
                for line in timeline.rejected.prefix(20) { h.raw("<div class=\"notice refused\">"); h.text(line); h.raw("</div>") }
                // As an image: what the trace names is drawn, never run.
                h.raw("<p><img id=\"timeline\" alt=\"timeline of the uploaded trace\" src=\"data:image/svg+xml;base64,")
                h.text(Data(timeline.svg.utf8).base64EncodedString())
                h.raw("\"></p>")
            }
        }
    }

    private func writeFunnels(_ h: inout HTMLWriter, _ funnels: [CampaignFunnel]) {
        h.raw("<table id=\"funnels\"><thead><tr><th>Campaign</th><th>Language</th><th>Funnel</th><th>Clicks by action</th></tr></thead><tbody>")
        for funnel in funnels {
            h.raw("<tr><td><a href=\""); page.campaignLink(&h, funnel.campaign); h.raw("\">"); h.text(funnel.campaign); h.raw("</a></td><td>"); h.text(funnel.language); h.raw("</td><td>")
            let top = max(funnel.delivered, 1)
            for (name, count) in [("delivered", funnel.delivered), ("presented", funnel.presented), ("opened", funnel.opened), ("clicked", funnel.clicked), ("dismissed", funnel.dismissed)] {
                h.raw("<div><meter min=\"0\" max=\""); h.number(top); h.raw("\" value=\""); h.number(count); h.raw("\"></meter> "); h.text(name); h.raw(" "); h.number(count); h.raw("</div>")
            }
            h.raw("</td><td>")
            for (action, count) in funnel.clicks.sorted(by: { $0.key < $1.key }) { h.text(action); h.raw(": "); h.number(count); h.raw("<br>") }
            h.raw("</td></tr>")
        }
        h.raw("</tbody></table>")
    }
}
