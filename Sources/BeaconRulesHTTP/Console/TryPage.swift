import BeaconRules
import BeaconRulesService
import Foundation
package import Hummingbird

/// `/try?device=&beacon=&type=&time=&locale=`: one event, answered with `explain`'s verdict per
/// campaign and a preview of each record it fires. With `--state`, against that device's history
/// (suppression, sendOnlyOnce); the state is read, never changed.
package struct TryPage: Sendable {
    package let page: ConsolePage
    package let hasState: Bool

    package func response(_ app: ConsoleApp, request: Request) async -> Response {
        let q = request.uri.queryParameters
        func field(_ name: String) -> String? { q.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        let snapshot = await app.snapshot()
        let asked = field("beacon") != nil
        let device = field("device") ?? "console"
        let type = field("type") == "enter" ? "enter" : "exit"
        let time = field("time") ?? ConsoleApp.now().description
        let locale = field("locale") ?? ""
        let beacon = field("beacon") ?? ""
        var problem: String?
        var explanations: [Explanation] = []
        var event: BeaconEvent?
        if asked {
            var w = JSONWriter(capacity: 256)
            w.raw("{\"id\":\"try\",\"device\":"); w.string(device)
            w.raw(",\"type\":"); w.string(type)
            w.raw(",\"beacon\":"); w.string(beacon)
            w.raw(",\"time\":"); w.string(time)
            if !locale.isEmpty { w.raw(",\"locale\":"); w.string(locale) }
            w.raw("}")
            do {
                let parsed = try EventParser.parse(line: String(decoding: w.bytes, as: UTF8.self), fallbackID: "try")
                event = parsed
                explanations = try await app.rules.explain(parsed)
            } catch {
                problem = "\(error)"
            }
        }
        return page.render("Try an event") { h in
            h.raw("<form class=\"inline\" method=\"get\" action=\""); page.link(&h, "/try"); h.raw("\">")
            input(&h, "Device", "device", device)
            h.raw("<label>Beacon<input name=\"beacon\" list=\"beacons\" size=\"46\" value=\""); h.text(beacon); h.raw("\"></label><datalist id=\"beacons\">")
            var listed = Set<String>()
            for entry in snapshot.entries {
                for case .exact(let id) in entry.campaign.beacons where listed.insert(id.description).inserted {
                    h.raw("<option value=\""); h.text(id.description); h.raw("\">")
                }
            }
            h.raw("</datalist><label>Type<select name=\"type\">")
            for option in ["enter", "exit"] {
                h.raw("<option"); if option == type { h.raw(" selected") }; h.raw(">"); h.text(option); h.raw("</option>")
            }
            h.raw("</select></label>")
            input(&h, "Time (RFC 3339)", "time", time)
            input(&h, "Locale", "locale", locale)
            h.raw("<button>Try</button></form><p class=\"muted\">")
            h.raw(hasState ? "Against this device's history in the state (suppression, sendOnlyOnce); the state is read, never changed." : "Without --state: every device is new.")
            h.raw("</p>")
            if let problem { h.raw("<div class=\"notice refused\" id=\"problem\">"); h.text(problem); h.raw("</div>") }
            guard let event, !explanations.isEmpty else { return }
            h.raw("<table id=\"verdicts\"><thead><tr><th>Campaign</th><th>Verdict</th></tr></thead><tbody>")
            var fired: [PhonePreview] = []
            for explanation in explanations {
                let fires: Bool
                if case .fires(let fireDate) = explanation.verdict {
                    fires = true
                    fired.append(CampaignPreviews(campaign: explanation.campaign, locales: snapshot.catalog.locales).preview(event: event, fireDate: fireDate))
                } else {
                    fires = false
                }
                h.raw(fires ? "<tr class=\"fires\">" : "<tr>")
                h.raw("<td><a href=\""); page.campaignLink(&h, explanation.campaign.eid); h.raw("\">"); h.text(explanation.campaign.eid); h.raw("</a></td><td>")
                h.text(String(explanation.text.dropFirst(explanation.campaign.eid.count + 2))); h.raw("</td></tr>")
            }
            h.raw("</tbody></table>")
            guard !fired.isEmpty else { h.raw("<p>Nothing fires.</p>"); return }
            h.raw("<h2>Fires</h2><div class=\"phones\" id=\"fired\">")
            for preview in fired { preview.write(to: &h) }
            h.raw("</div>")
            for preview in fired { preview.writeJSON(to: &h) }
        }
    }

    private func input(_ h: inout HTMLWriter, _ label: String, _ name: String, _ value: String) {
        h.raw("<label>"); h.text(label); h.raw("<input name=\""); h.text(name); h.raw("\" value=\""); h.text(value); h.raw("\"></label>")
    }
}
