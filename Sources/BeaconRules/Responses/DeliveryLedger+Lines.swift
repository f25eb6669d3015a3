/// The ledger as JSON lines, for stores that keep it between runs (`replay --state`, `report`):
/// one line per delivered notification, rescheduled id, handled click and unhandled count.
extension DeliveryLedger {
    public func appendJSONLines(to w: inout JSONWriter) {
        for (i, e) in entries.enumerated() {
            w.raw("{\"delivery\":"); w.string(Self.hex(e.key))
            w.raw(",\"campaign\":"); w.string(campaignIDs[Int(e.campaign)].canonical)
            w.raw(",\"eid\":"); w.string(campaignNames[Int(e.campaign)])
            w.raw(",\"language\":"); w.string(languages[Int(e.language)])
            w.raw(",\"locale\":"); w.optionalString(locales[Int(e.locale)])
            w.raw(",\"beacon\":\""); e.beacon.appendPid(to: &w.bytes)
            w.raw(e.trigger == .enter ? "\",\"trigger\":\"enter\"" : "\",\"trigger\":\"exit\"")
            w.raw(",\"state\":"); w.integer(Int64(e.state))
            w.raw(",\"clicks\":[")
            for (n, id) in clickedIds(Int32(i)).enumerated() {
                if n > 0 { w.raw(",") }
                w.string(id)
            }
            w.raw("]}\n")
        }
        for (key, entry) in index.sorted(by: { $0.key < $1.key }) where entries[Int(entry)].key != key {
            w.raw("{\"alias\":"); w.string(Self.hex(key)); w.raw(",\"of\":"); w.string(Self.hex(entries[Int(entry)].key)); w.raw("}\n")
        }
        for key in handled.sorted() {
            w.raw("{\"handled\":"); w.string(Self.hex(key)); w.raw("}\n")
        }
        for (k, count) in unhandled.sorted(by: { ($0.key.campaign, $0.key.language, $0.key.type) < ($1.key.campaign, $1.key.language, $1.key.type) }) {
            w.raw("{\"unhandled\":"); w.string(k.type)
            w.raw(",\"campaign\":"); w.string(campaignIDs[Int(k.campaign)].canonical)
            w.raw(",\"eid\":"); w.string(campaignNames[Int(k.campaign)])
            w.raw(",\"language\":"); w.string(languages[Int(k.language)])
            w.raw(",\"count\":"); w.integer(Int64(count)); w.raw("}\n")
        }
    }

    /// Takes back one line written by `appendJSONLines`; the message says what is missing.
    public mutating func load(line value: JSONValue) throws(LedgerLineError) {
        func text(_ key: String) throws(LedgerLineError) -> String {
            guard let s = value[key]?.stringValue else { throw LedgerLineError("expected `\(key)` as a string") }
            return s
        }
        func key(_ name: String) throws(LedgerLineError) -> UInt64 {
            guard let k = UInt64(try text(name), radix: 16) else { throw LedgerLineError("`\(name)` is not 16 hex digits") }
            return k
        }
        if value["delivery"] != nil {
            let k = try key("delivery")
            let campaign = campaignSlot(CampaignID(canonical: try text("campaign")), eid: try text("eid"))
            let language = languageSlot(try text("language"))
            let locale = localeSlot(value["locale"]?.stringValue)
            guard let beacon = BeaconID(pid: try text("beacon")) else { throw LedgerLineError("`beacon` is not a 42-char pid") }
            let trigger: EventKind = try text("trigger") == "exit" ? .exit : .enter
            guard let state = value["state"]?.integerValue, (0...15).contains(state) else { throw LedgerLineError("expected `state` 0...15") }
            deliver(key: k, rule: -1, campaign: campaign, language: language, locale: locale, beacon: beacon, trigger: trigger)
            let entry = index[k]!
            entries[Int(entry)].state = UInt8(state)
            for element in value["clicks"]?.arrayElements ?? [] {
                if let id = element.value.stringValue { _ = markClick(entry, actionId: id) }
            }
        } else if value["alias"] != nil {
            guard let entry = index[try key("of")] else { throw LedgerLineError("`of` names no delivery above it") }
            index[try key("alias")] = entry
        } else if value["handled"] != nil {
            handled.insert(try key("handled"))
        } else if value["unhandled"] != nil {
            let campaign = campaignSlot(CampaignID(canonical: try text("campaign")), eid: try text("eid"))
            let language = languageSlot(try text("language"))
            guard let count = value["count"]?.integerValue else { throw LedgerLineError("expected `count` as an integer") }
            unhandled[.init(campaign: campaign, language: language, type: try text("unhandled")), default: 0] += Int(count)
        } else {
            throw LedgerLineError("expected a `delivery`, `alias`, `handled` or `unhandled` line")
        }
    }

    static func hex(_ key: UInt64) -> String {
        let digits = String(key, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A saved ledger line that can not be read back.
public struct LedgerLineError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
