import BeaconRules
package import Hummingbird

/// `/`: every campaign with its status now, trigger, beacons, languages and lint counts;
/// `?q=` searches eid, name, file and strings, `?status=` filters (both work without script; the
/// script filters the rows as you type).
package struct CampaignListPage: Sendable {
    package let page: ConsolePage

    package func response(_ snapshot: ConsoleSnapshot, request: Request) -> Response {
        let query = request.uri.queryParameters.get("q").map { $0.lowercased() } ?? ""
        let wanted = request.uri.queryParameters.get("status").flatMap(CampaignStatus.init(rawValue:))
        let now = ConsoleApp.now()
        return page.render("Campaigns") { h in
            var counts: [CampaignStatus: Int] = [:]
            var rows = HTMLWriter(capacity: snapshot.entries.count * 600)
            var shown = 0
            for entry in snapshot.entries {
                let status = CampaignStatus(entry, now: now)
                counts[status, default: 0] += 1
                if let wanted, wanted != status { continue }
                let search = Self.searchText(entry)
                if !query.isEmpty && !search.contains(query) { continue }
                shown += 1
                row(&rows, entry, status: status, search: search)
            }
            h.raw("<form class=\"inline\" method=\"get\" action=\""); page.link(&h, "/"); h.raw("\">")
            h.raw("<label>Search<input id=\"filter\" name=\"q\" value=\""); h.text(query); h.raw("\" placeholder=\"eid, name, text, file\" autocomplete=\"off\"></label>")
            h.raw("<label>Status<select name=\"status\"><option value=\"\">any</option>")
            for status in CampaignStatus.allCases {
                h.raw("<option value=\""); h.text(status.rawValue); h.raw("\"")
                if status == wanted { h.raw(" selected") }
                h.raw(">"); h.text(status.label); h.raw(" ("); h.number(counts[status] ?? 0); h.raw(")</option>")
            }
            h.raw("</select></label><button>Filter</button></form>")
            h.raw("<p class=\"muted\">"); h.number(shown); h.raw(" of "); h.number(snapshot.entries.count); h.raw(" campaigns</p>")
            h.raw("<table id=\"campaigns\"><thead><tr><th>Campaign</th><th>Status</th><th>Trigger</th><th>Beacons</th><th>Languages</th><th>Lint</th><th>File</th></tr></thead><tbody>")
            h.append(rows)
            h.raw("</tbody></table>")
        }
    }

    private func row(_ h: inout HTMLWriter, _ entry: ConsoleSnapshot.Entry, status: CampaignStatus, search: String) {
        let campaign = entry.campaign
        h.raw("<tr data-search=\""); h.text(search); h.raw("\"><td><a href=\""); page.campaignLink(&h, campaign.eid); h.raw("\">")
        h.text(campaign.eid); h.raw("</a>")
        if let name = campaign.name { h.raw("<br><span class=\"muted\">"); h.text(name); h.raw("</span>") }
        h.raw("</td><td><span class=\"status "); h.text(status.rawValue); h.raw("\">"); h.text(status.label); h.raw("</span></td><td>")
        h.text(campaign.trigger.name); h.raw("</td><td>")
        for (i, beacon) in campaign.beacons.prefix(3).enumerated() {
            if i > 0 { h.raw("<br>") }
            h.raw("<code>"); h.text(Self.describe(beacon)); h.raw("</code>")
        }
        if campaign.beacons.count > 3 { h.raw("<br><span class=\"muted\">+"); h.number(campaign.beacons.count - 3); h.raw(" more</span>") }
        h.raw("</td><td>"); h.text(entry.languages.joined(separator: " ")); h.raw("</td><td>")
        let warnings = entry.diagnostics.count - entry.errors
        if entry.errors > 0 { h.raw("<span class=\"error\">"); h.number(entry.errors); h.raw(entry.errors == 1 ? " error</span> " : " errors</span> ") }
        if warnings > 0 { h.raw("<span class=\"warning\">"); h.number(warnings); h.raw(warnings == 1 ? " warning</span>" : " warnings</span>") }
        h.raw("</td><td class=\"muted\">"); h.text(campaign.origin.description); h.raw("</td></tr>\n")
    }

    /// What the search looks in, lower-cased.
    static func searchText(_ entry: ConsoleSnapshot.Entry) -> String {
        let c = entry.campaign
        var parts = [c.eid, c.name ?? "", c.origin.file, c.content.subject ?? "", c.content.body ?? ""]
        for block in [c.onEnter, c.onExit] {
            for language in block?.languages ?? [] { parts.append(language.strings["title"] ?? "") }
        }
        return parts.joined(separator: " ").lowercased()
    }

    /// A `beacons` entry as campaign files write it.
    static func describe(_ beacon: BeaconPattern) -> String {
        switch beacon {
        case .exact(let id): id.description
        case .proximityUUID(let uuid): "\(uuid) (any major, minor)"
        case .geofence(let fence): "geofence \(fence)"
        }
    }
}
