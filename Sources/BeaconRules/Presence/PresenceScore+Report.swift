extension PresenceScore {
    /// The score as text: per subject, the log beside the derived stays (times UTC), then the figures.
    package func report() -> String {
        var out = ""
        var subjects: [String] = []
        for stay in log.stays where !subjects.contains(stay.subject) { subjects.append(stay.subject) }
        for subject in subjects {
            out += "\(subject)\n"
            out += "  " + pad("logged", 50) + "derived\n"
            // Rows in time order: each logged stay with what found it, then derived stays that found nothing.
            var rows: [(time: Int64, text: String)] = []
            for (l, logged) in log.stays.enumerated() where logged.subject == subject {
                let left = pad(logged.room, 9) + window(logged.from) + " - " + window(logged.to)
                let right = match[l].map { "\(describe(stays[$0]))  found" } ?? "(none)  MISSED"
                rows.append((logged.from.start, "  " + pad(left, 50) + right))
            }
            for (d, stay) in stays.enumerated() where stay.subject == subject {
                switch verdicts[d] {
                case .found: continue
                case .extra: rows.append((stay.enter, "  " + pad("", 50) + describe(stay) + "  extra"))
                case .falseStay: rows.append((stay.enter, "  " + pad("", 50) + describe(stay) + "  FALSE (\(seconds(stay.length)))"))
                }
            }
            for row in rows.sorted(by: { $0.time < $1.time }) { out += row.text + "\n" }
        }
        let longest = falseStays.map(\.length).max()
        out += "logged stays: \(log.stays.count), found: \(found), missed: \(missed)\n"
        out += "derived stays: \(stays.count), false: \(falseStays.count)" + (longest.map { " (longest \(seconds($0)))" } ?? "") + ", extra: \(extraStays) (at most \(mostExtrasPerLoggedStay) per logged stay)\n"
        if ignored > 0 { out += "left out: \(ignored) stays of subjects the log does not name\n" }
        return out
    }

    private func describe(_ stay: Stay) -> String {
        pad(stay.room, 9) + clock(stay.enter) + " - " + (stay.exit == Int64.max ? "(open)" : clock(stay.exit))
    }

    private func window(_ w: MovementLog.Window) -> String {
        w.start == w.end ? clock(w.start) : clock(w.start) + "/" + clock(w.end)
    }

    private func clock(_ t: Int64) -> String {
        let text = Timestamp(milliseconds: t).description
        guard let tIndex = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: tIndex)...].prefix(8))
    }

    private func seconds(_ ms: Int64) -> String { ms == Int64.max ? "open" : "\((ms + 500) / 1000) s" }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
