package import Hummingbird

/// `/` with an apps file: every app, linking to its pages under `/apps/ID/`.
package enum AppListPage {
    package static func response(apps: [ConsoleApp], csrf: String) async -> Response {
        var counts: [Int] = []
        for app in apps { counts.append(await app.snapshot().entries.count) }
        return ConsolePage(base: "", csrf: csrf, app: nil).render("Apps") { h in
            h.raw("<table><thead><tr><th>App</th><th>Campaigns</th></tr></thead><tbody>")
            for (app, count) in zip(apps, counts) {
                h.raw("<tr><td><a href=\"/apps/"); h.pathSegment(app.id); h.raw("/\">"); h.text(app.id); h.raw("</a></td><td>"); h.number(count); h.raw("</td></tr>")
            }
            h.raw("</tbody></table>")
        }
    }
}
