import Foundation
package import BeaconRules
package import Hummingbird
import NIOCore

/// `/translations` and `/translations.csv`: every notification campaign's triggers by language,
/// each cell complete (title, message and both button titles), partial or missing; a button the
/// campaign leaves out counts when `Locales/` gives that language one, as a device would show it.
/// The CSV is for translators: one row a string, `campaign,trigger,language,field,text`, the text
/// empty where the campaign has none.
package struct TranslationMatrix: Sendable {
    package static let fields = ["title", "message", "okButtonTitle", "cancelButtonTitle"]

    package enum Coverage: String, Sendable { case complete, partial, missing }

    /// One campaign's trigger block.
    package struct Row: Sendable {
        package let campaign: String
        /// `onEnter` or `onExit`.
        package let trigger: String
        /// The block's strings by language key.
        package let strings: [String: [String: String]]
        package let confirm: ConfirmAction
    }

    package let rows: [Row]
    /// Every language a block writes, then every `Locales/` language, sorted.
    package let languages: [String]
    private let chooser: LanguageChooser

    package init(_ snapshot: ConsoleSnapshot) {
        var rows: [Row] = []
        var languages = Set(snapshot.catalog.locales.entries.values.map(\.tag))
        for entry in snapshot.entries where entry.campaign.actionType != .silent {
            for (name, block) in [("onEnter", entry.campaign.onEnter), ("onExit", entry.campaign.onExit)] {
                guard let block else { continue }
                var strings: [String: [String: String]] = [:]
                for language in block.languages {
                    strings[language.key] = language.strings
                    languages.insert(language.key)
                }
                rows.append(Row(campaign: entry.campaign.eid, trigger: name, strings: strings, confirm: block.confirmAction))
            }
        }
        // A key written `de` and a Locales tag `de` are one column.
        var seen = Set<String>()
        self.languages = languages.sorted().filter { seen.insert(LanguageTag.normalize($0)).inserted }
        self.rows = rows
        chooser = LanguageChooser(locales: snapshot.catalog.locales)
    }

    /// The strings `language` has in `row`, keyed by normalized tag.
    private func strings(_ row: Row, _ language: String) -> [String: String]? {
        row.strings.first { LanguageTag.normalize($0.key) == LanguageTag.normalize(language) }?.value
    }

    /// How complete `language` is in `row`, and the fields it lacks.
    package func coverage(_ row: Row, _ language: String) -> (Coverage, missing: [String]) {
        guard let own = strings(row, language) else { return (.missing, Self.fields) }
        let tag = LanguageTag.normalize(language)
        let missing = Self.fields.filter { field in
            if own[field] != nil { return false }
            switch field {
            case "okButtonTitle": return chooser.defaultConfirmTitle(row.confirm, tag: tag) == nil
            case "cancelButtonTitle": return chooser.defaultCancelTitle(tag: tag) == nil
            default: return true
            }
        }
        return (missing.isEmpty ? .complete : .partial, missing)
    }

    package func page(_ page: ConsolePage) -> Response {
        page.render("Translations") { h in
            h.raw("<p><a href=\""); page.link(&h, "/translations.csv"); h.raw("\" download>Export CSV</a> <span class=\"muted\">(campaign,trigger,language,field,text: one row a string)</span></p>")
            h.raw("<table class=\"matrix\"><thead><tr><th>Campaign</th><th>Trigger</th>")
            for language in languages { h.raw("<th>"); h.text(language); h.raw("</th>") }
            h.raw("</tr></thead><tbody>")
            for row in rows {
                h.raw("<tr><td><a href=\""); page.campaignLink(&h, row.campaign); h.raw("\">"); h.text(row.campaign); h.raw("</a></td><td>"); h.text(row.trigger); h.raw("</td>")
                for language in languages {
                    let (coverage, missing) = coverage(row, language)
                    h.raw("<td class=\""); h.text(coverage.rawValue); h.raw("\" title=\"")
                    h.text(missing.isEmpty ? "complete" : "missing: " + missing.joined(separator: ", ")); h.raw("\">")
                    h.text(coverage == .complete ? "✓" : coverage == .partial ? "partial" : "–"); h.raw("</td>")
                }
                h.raw("</tr>\n")
            }
            h.raw("</tbody></table>")
        }
    }

    /// The CSV: every (campaign, trigger, language, field), the campaign's own text or empty.
    package var csv: String {
        var out = "campaign,trigger,language,field,text\r\n"
        for row in rows {
            for language in languages {
                let own = strings(row, language)
                for field in Self.fields {
                    out += [row.campaign, row.trigger, language, field, own?[field] ?? ""].map(Self.csvField).joined(separator: ",") + "\r\n"
                }
            }
        }
        return out
    }

    package func csvResponse() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"translations.csv\""],
            body: ResponseBody(byteBuffer: ByteBuffer(string: csv)))
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
