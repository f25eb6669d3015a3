/// The response funnel of one campaign in one language: how many notifications were delivered,
/// presented, opened, clicked (in all and per button) and dismissed, each notification counted
/// at most once per state.
public struct CampaignFunnel: Sendable, Equatable {
    /// The campaign's eid, as its records carry it.
    public var campaign: String
    /// The records' language.
    public var language: String
    /// Notifications delivered.
    public var delivered = 0
    /// Notifications the device reported presented (`present`).
    public var presented = 0
    /// Notifications opened (`open`, or a click: a click counts opened too).
    public var opened = 0
    /// Notifications with a button clicked (`click`).
    public var clicked = 0
    /// Notifications dismissed (`dismiss`).
    public var dismissed = 0
    /// Notifications clicked per button id.
    public var clicks: [String: Int] = [:]
    /// Clicks on action types no handler took, per type.
    public var unhandled: [String: Int] = [:]

    /// An empty funnel of a campaign in a language.
    public init(campaign: String, language: String) {
        self.campaign = campaign
        self.language = language
    }

    /// Presented among delivered (0 when none was delivered).
    public var presentRate: Double { rate(presented) }
    /// Opened among delivered.
    public var openRate: Double { rate(opened) }
    /// Clicked among delivered.
    public var clickRate: Double { rate(clicked) }
    /// Dismissed among delivered.
    public var dismissRate: Double { rate(dismissed) }
    /// Clicked among opened (a tap on the notification opens it without clicking a button).
    public var clickToOpenRate: Double { opened == 0 ? 0 : Double(clicked) / Double(opened) }

    private func rate(_ n: Int) -> Double { delivered == 0 ? 0 : Double(n) / Double(delivered) }
}

extension DeliveryLedger {
    /// The funnel of every (campaign, language) with a delivery, sorted by campaign then language.
    public func funnels() -> [CampaignFunnel] {
        if !unindexed.isEmpty { return caughtUp().funnels() }
        var table: [UInt64: CampaignFunnel] = [:]
        func key(_ campaign: UInt32, _ language: UInt32) -> UInt64 { UInt64(campaign) << 32 | UInt64(language) }
        for (i, e) in entries.enumerated() {
            var f = table[key(e.campaign, e.language)] ?? CampaignFunnel(campaign: campaignNames[Int(e.campaign)], language: languages[Int(e.language)])
            f.delivered += 1
            if e.state & Self.presented != 0 { f.presented += 1 }
            if e.state & Self.opened != 0 { f.opened += 1 }
            if e.state & Self.clicked != 0 { f.clicked += 1 }
            if e.state & Self.dismissed != 0 { f.dismissed += 1 }
            for id in clickedIds(Int32(i)) { f.clicks[id, default: 0] += 1 }
            table[key(e.campaign, e.language)] = f
        }
        for (k, count) in unhandled {
            var f = table[key(k.campaign, k.language)] ?? CampaignFunnel(campaign: campaignNames[Int(k.campaign)], language: languages[Int(k.language)])
            f.unhandled[k.type, default: 0] += count
            table[key(k.campaign, k.language)] = f
        }
        return table.values.sorted { ($0.campaign, $0.language) < ($1.campaign, $1.language) }
    }
}

/// `beaconrules report`: the funnels as a text table or as JSON.
public enum FunnelReport {
    /// One row per campaign and language; rates in percent of delivered.
    public static func table(_ funnels: [CampaignFunnel]) -> String {
        let header = ["campaign", "language", "delivered", "presented", "opened", "clicked", "dismissed", "open%", "click%", "clicks by action", "unhandled"]
        var rows = [header]
        for f in funnels {
            rows.append([
                f.campaign, f.language, "\(f.delivered)", "\(f.presented)", "\(f.opened)", "\(f.clicked)", "\(f.dismissed)",
                percent(f.openRate), percent(f.clickRate),
                f.clicks.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                f.unhandled.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
            ])
        }
        var widths = Array(repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        let numeric = Set(2...8)
        var out = ""
        for row in rows {
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += i == 0 ? "" : "  "
                line += numeric.contains(i) ? pad + cell : cell + (i == row.count - 1 ? "" : pad)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    /// `{"funnels":[{campaign, language, delivered, ..., clicks: {id: n}, unhandled: {type: n}, rates: {...}}]}`.
    public static func json(_ funnels: [CampaignFunnel]) -> String {
        var w = JSONWriter(capacity: 256 * (funnels.count + 1))
        w.raw("{\"funnels\":[")
        for (i, f) in funnels.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"campaign\":"); w.string(f.campaign)
            w.raw(",\"language\":"); w.string(f.language)
            w.raw(",\"delivered\":"); w.integer(Int64(f.delivered))
            w.raw(",\"presented\":"); w.integer(Int64(f.presented))
            w.raw(",\"opened\":"); w.integer(Int64(f.opened))
            w.raw(",\"clicked\":"); w.integer(Int64(f.clicked))
            w.raw(",\"dismissed\":"); w.integer(Int64(f.dismissed))
            w.raw(",\"clicks\":"); counts(f.clicks, &w)
            w.raw(",\"unhandled\":"); counts(f.unhandled, &w)
            w.raw(",\"rates\":{\"presented\":"); w.rawText(decimal(f.presentRate))
            w.raw(",\"opened\":"); w.rawText(decimal(f.openRate))
            w.raw(",\"clicked\":"); w.rawText(decimal(f.clickRate))
            w.raw(",\"dismissed\":"); w.rawText(decimal(f.dismissRate))
            w.raw(",\"clickToOpen\":"); w.rawText(decimal(f.clickToOpenRate))
            w.raw("}}")
        }
        w.raw("]}\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    private static func counts(_ table: [String: Int], _ w: inout JSONWriter) {
        w.raw("{")
        for (i, (key, n)) in table.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { w.raw(",") }
            w.string(key); w.raw(":"); w.integer(Int64(n))
        }
        w.raw("}")
    }

    /// A rate with four decimals, no Foundation formatting.
    static func decimal(_ rate: Double) -> String {
        let scaled = Int64((rate * 10_000).rounded())
        let whole = scaled / 10_000, fraction = scaled % 10_000
        let digits = String(fraction)
        return "\(whole).\(String(repeating: "0", count: 4 - digits.count))\(digits)"
    }

    static func percent(_ rate: Double) -> String {
        let tenths = Int64((rate * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
