import BeaconRules

extension Timeline {
    /// The picture as a standalone SVG document: a time axis (UTC), one labelled row per
    /// (device, beacon), bars for stays (the pale tail is the exit timeout before the exit was
    /// confirmed), grey ticks for raw sightings, and coloured markers per campaign at each record's
    /// fireDate (a hollow red cross for a withdrawn record).
    package func svg() -> String {
        var times: [Int64] = rows.flatMap { r in r.stays.flatMap { [$0.start, $0.confirmedAt] }.filter { $0 != Int64.max } + r.sightings + r.marks.map(\.time) }
        for subject in subjects {
            for stay in subject.stays { times += [stay.start, stay.end].filter { $0 != Int64.max } }
        }
        guard var t0 = times.min(), var t1 = times.max() else {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"60\"><text x=\"10\" y=\"30\" font-family=\"sans-serif\">nothing to show</text></svg>\n"
        }
        if t1 - t0 < 10_000 { t1 = t0 + 10_000 }
        let pad = (t1 - t0) / 50
        t0 -= pad
        t1 += pad
        let labelWidth = 300.0, plotWidth = 1100.0, rowHeight = 30.0, top = 84.0
        let campaigns = Array(Set(rows.flatMap { $0.marks.filter { $0.kind != .withdrawn }.map(\.campaign) })).sorted()
        let rooms = Array(Set(subjects.flatMap { $0.stays.map(\.room) })).sorted()
        let legendLines = (campaigns.count + 3) / 4 + (rooms.count + 5) / 6
        let legendHeight = 30.0 + 18.0 * Double(legendLines)
        let width = labelWidth + plotWidth + 30
        let height = top + rowHeight * Double(subjects.count + rows.count) + 40 + legendHeight
        func x(_ t: Int64) -> Double { labelWidth + plotWidth * Double(t - t0) / Double(t1 - t0) }
        func f(_ v: Double) -> String { String(Double(Int((v * 10).rounded())) / 10) }
        let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
        func color(_ campaign: String) -> String { palette[(campaigns.firstIndex(of: campaign) ?? 0) % palette.count] }

        let roomPalette = ["#80b1d3", "#fdb462", "#b3de69", "#fb8072", "#bebada", "#8dd3c7", "#fccde5", "#ffed6f", "#bc80bd", "#d9d9d9"]
        func roomColor(_ room: String) -> String { roomPalette[(rooms.firstIndex(of: room) ?? 0) % roomPalette.count] }

        let uuids = Array(Set(rows.map { $0.beacon.uuid.description.replacingDashes() })).sorted()
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        out += "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">\(escape(title))</text>\n"
        // Axis: a tick step that gives 6-12 ticks.
        let span = t1 - t0
        let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400].map { $0 * 1000 }
        let step = steps.first { span / $0 <= 12 } ?? 86_400_000
        var tick = (t0 / step + 1) * step
        let bottom = top + rowHeight * Double(subjects.count + rows.count)
        while tick < t1 {
            out += "<line x1=\"\(f(x(tick)))\" y1=\"\(f(top - 8))\" x2=\"\(f(x(tick)))\" y2=\"\(f(bottom))\" stroke=\"#e4e4e4\"/>\n"
            out += "<text x=\"\(f(x(tick)))\" y=\"\(f(top - 12))\" text-anchor=\"middle\" fill=\"#555\">\(clock(tick))</text>\n"
            tick += step
        }
        out += "<text x=\"\(f(labelWidth))\" y=\"\(f(top - 28))\" fill=\"#555\">UTC, \(day(t0))</text>\n"
        let uuidNote = uuids.count == 1 ? "beacons major.minor of UUID \(uuids[0])" : "beacons: UUID (its distinct part) major.minor"
        out += "<text x=\"10\" y=\"40\" fill=\"#555\">\(escape(uuidNote))</text>\n"
        // Exclusive zones: one row per subject, its room over time, coloured per room.
        for (i, subject) in subjects.enumerated() {
            let y = top + rowHeight * Double(i)
            let mid = y + rowHeight / 2
            out += "<rect x=\"0\" y=\"\(f(y))\" width=\"\(Int(width))\" height=\"\(f(rowHeight))\" fill=\"#eef3f8\"/>\n"
            out += "<text x=\"10\" y=\"\(f(mid + 4))\" font-weight=\"bold\">\(escape(name(subject.subject, among: uuids, kind: subjectKind)))  room</text>\n"
            for stay in subject.stays {
                let end = stay.end == Int64.max ? t1 : stay.end
                let w = Swift.max(1.5, x(end) - x(stay.start))
                let room = name(stay.room, among: uuids, kind: subjectKind == .beacon ? .device : .beacon)
                out += "<rect x=\"\(f(x(stay.start)))\" y=\"\(f(mid - 9))\" width=\"\(f(w))\" height=\"18\" fill=\"\(roomColor(stay.room))\" stroke=\"white\"><title>\(escape(room)) \(clock(stay.start))-\(stay.end == Int64.max ? "end" : clock(stay.end))</title></rect>\n"
                if w > Double(room.count) * 7 + 6 {
                    out += "<text x=\"\(f(x(stay.start) + 3))\" y=\"\(f(mid + 4))\" font-size=\"11\">\(escape(room))</text>\n"
                }
            }
        }
        if !subjects.isEmpty {
            let y = top + rowHeight * Double(subjects.count)
            out += "<line x1=\"0\" y1=\"\(f(y))\" x2=\"\(Int(width))\" y2=\"\(f(y))\" stroke=\"#999\"/>\n"
        }
        for (i, row) in rows.enumerated() {
            let y = top + rowHeight * Double(subjects.count + i)
            let mid = y + rowHeight / 2
            if i % 2 == 1 { out += "<rect x=\"0\" y=\"\(f(y))\" width=\"\(Int(width))\" height=\"\(f(rowHeight))\" fill=\"#f7f7f7\"/>\n" }
            let label = "\(row.device)  \(beaconLabel(row.beacon, among: uuids))"
            out += "<text x=\"10\" y=\"\(f(mid + 4))\">\(escape(label))</text>\n"
            // Sightings: one tick each, pale, above the bar.
            var path = ""
            for t in row.sightings { path += "M\(f(x(t))) \(f(y + 3))v5" }
            if !path.isEmpty { out += "<path d=\"\(path)\" stroke=\"#999\" stroke-width=\"0.6\" stroke-opacity=\"0.6\"/>\n" }
            for stay in row.stays where stay.end == Int64.max {
                // Still open at the end of the input: drawn to the right edge, hatched by opacity.
                out += "<rect x=\"\(f(x(stay.start)))\" y=\"\(f(mid - 5))\" width=\"\(f(x(t1) - x(stay.start)))\" height=\"11\" rx=\"2\" fill=\"#4c9f70\" fill-opacity=\"0.45\" stroke=\"#4c9f70\" stroke-dasharray=\"4 3\"><title>stay from \(clock(stay.start)), still open at the end of the input</title></rect>\n"
            }
            for stay in row.stays where stay.end != Int64.max {
                let w = Swift.max(1.5, x(stay.end) - x(stay.start))
                out += "<rect x=\"\(f(x(stay.start)))\" y=\"\(f(mid - 5))\" width=\"\(f(w))\" height=\"11\" rx=\"2\" fill=\"#4c9f70\"><title>stay \(clock(stay.start))-\(clock(stay.end)), exit confirmed \(clock(stay.confirmedAt))</title></rect>\n"
                if stay.confirmedAt > stay.end {
                    out += "<rect x=\"\(f(x(stay.end)))\" y=\"\(f(mid - 2))\" width=\"\(f(x(stay.confirmedAt) - x(stay.end)))\" height=\"5\" fill=\"#4c9f70\" fill-opacity=\"0.3\"/>\n"
                }
            }
            for mark in row.marks {
                let cx = x(mark.time)
                switch mark.kind {
                case .withdrawn:
                    out += "<path d=\"M\(f(cx - 5)) \(f(mid - 5))l10 10m0 -10l-10 10\" stroke=\"#d62728\" stroke-width=\"2\"><title>withdrawn: \(escape(mark.campaign)) (was due \(clock(mark.time)))</title></path>\n"
                case .notification, .silent:
                    let shape = mark.kind == .silent
                        ? "<rect x=\"\(f(cx - 4))\" y=\"\(f(mid - 11))\" width=\"8\" height=\"8\""
                        : "<path d=\"M\(f(cx)) \(f(mid - 3))l-5 -9h10z\""
                    out += "\(shape) fill=\"\(color(mark.campaign))\" stroke=\"black\" stroke-width=\"0.5\"><title>\(escape(mark.campaign)) \(mark.trigger) at \(clock(mark.time))</title></\(mark.kind == .silent ? "rect" : "path")>\n"
                }
            }
        }
        // Legend.
        var ly = bottom + 30
        out += "<text x=\"10\" y=\"\(f(ly))\"><tspan fill=\"#4c9f70\" font-weight=\"bold\">bar</tspan> stay (pale tail: exit timeout until confirmed; dashed: open at the end)   <tspan fill=\"#999\">|</tspan> raw sighting   ▼ notification   ■ silent record   <tspan fill=\"#d62728\">✕</tspan> withdrawn</text>\n"
        for (i, campaign) in campaigns.enumerated() {
            if i % 4 == 0 { ly += 18 }
            let lx = 10 + Double(i % 4) * 330
            out += "<rect x=\"\(f(lx))\" y=\"\(f(ly - 9))\" width=\"10\" height=\"10\" fill=\"\(color(campaign))\"/><text x=\"\(f(lx + 15))\" y=\"\(f(ly))\">\(escape(campaign))</text>\n"
        }
        for (i, room) in rooms.enumerated() {
            if i % 6 == 0 { ly += 18 }
            let lx = 10 + Double(i % 6) * 220
            let label = (i == 0 ? "room " : "") + name(room, among: uuids, kind: subjectKind == .beacon ? .device : .beacon)
            out += "<rect x=\"\(f(lx))\" y=\"\(f(ly - 9))\" width=\"10\" height=\"10\" fill=\"\(roomColor(room))\"/><text x=\"\(f(lx + 15))\" y=\"\(f(ly))\">\(escape(label))</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// A subject's or room's name as the rows label it: a beacon as `major.minor`, a device by its id.
    private func name(_ text: String, among uuids: [String], kind: PresenceSubject) -> String {
        guard kind == .beacon, let beacon = BeaconID(pid: text) else { return text }
        return beaconLabel(beacon, among: uuids)
    }

    /// `major.minor`, preceded by the part of the UUID that differs between the rows' UUIDs when
    /// there are several: full UUIDs would fill the label column and mostly repeat each other.
    private func beaconLabel(_ beacon: BeaconID, among uuids: [String]) -> String {
        let ids = "\(beacon.major).\(beacon.minor)"
        guard uuids.count > 1 else { return ids }
        let hex = Array(beacon.uuid.description.replacingDashes())
        let all = uuids.map(Array.init)
        var prefix = 0
        while prefix < hex.count && all.allSatisfy({ $0[prefix] == hex[prefix] }) { prefix += 1 }
        var suffix = 0
        while suffix < hex.count - prefix && all.allSatisfy({ $0[$0.count - 1 - suffix] == hex[hex.count - 1 - suffix] }) { suffix += 1 }
        // At most 8 distinct digits: enough to tell a site's UUIDs apart, short enough for the column.
        let distinct = hex[prefix..<(hex.count - suffix)]
        return "…" + String(distinct.prefix(8)) + "… " + ids
    }

    private func clock(_ t: Int64) -> String {
        let text = Timestamp(milliseconds: t).description
        guard let tIndex = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: tIndex)...].prefix(8))
    }

    private func day(_ t: Int64) -> String { String(Timestamp(milliseconds: t).description.prefix(10)) }

    private func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingDashes() -> String { String(filter { $0 != "-" }) }
}
