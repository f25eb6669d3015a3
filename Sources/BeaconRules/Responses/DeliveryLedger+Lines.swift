/// The ledger as JSON lines, each with a stable key, for stores that keep it between runs
/// (`replay --state`, `serve --state`, `report`): one line per delivered notification,
/// rescheduled id, handled click and unhandled count; with `savesTombstones`, one per id
/// forgotten lately too (among the changes only: `allLines` is what a report reads). A store saves the lines that changed (`takeChanges`) with each commit,
/// and replays every line (`load`) when it opens; a store that other processes share also reads
/// the lines of the records a transaction's responses name (`lineKeys(naming:)`) and merges them
/// in (`merge(saved:)`).
extension DeliveryLedger {
    /// One saved line: `key` orders lines so that a delivery comes before the lines naming it.
    public struct Line: Sendable, Equatable {
        /// Where the line is saved; lines load in `key` order.
        public var key: String
        /// Empty: the line is gone (its delivery was forgotten, SPEC section 5), and a store
        /// deletes what it saved under `key`.
        public var json: [UInt8]
        /// The key (16 hex digits) of the delivery the line belongs to: its own for a delivery or
        /// a tombstone, the one it names for a rescheduled id or a handled click; nil for an
        /// unhandled count (and a removal). A shared store finds a delivery's lines by it.
        public var delivery: String?
        /// Whether the line deletes what was saved under `key`.
        public var isRemoval: Bool { json.isEmpty }
        /// An unhandled count: a running total across deliveries, which a shared store adds
        /// to rather than overwrites.
        public var isCount: Bool { key.hasPrefix("3:") }
    }

    /// The keys of the saved lines that say what record `recordID` is: its delivery, its
    /// rescheduled id, its tombstone. With them, a store finds the delivery's other lines
    /// (by `Line.delivery`).
    public static func lineKeys(naming recordID: String) -> [String] {
        let key = hex(Self.key(recordID))
        return ["0:" + key, "1:" + key, "4:" + key]
    }

    /// Every line of the ledger, in key order.
    public func allLines() -> [Line] {
        if !unindexed.isEmpty { return caughtUp().allLines() }
        var changes = Changes()
        changes.entries = Set(entries.indices.map { Int32($0) })
        index.forEach { key, entry in if entries[Int(entry)].key != key { changes.aliases.append(key) } }
        changes.handled = Array(handled)
        changes.removed = []
        changes.unhandled = Set(unhandled.keys)
        return lines(changes).sorted { $0.key < $1.key }
    }

    /// The lines changed since the last call, and forgets them.
    public mutating func takeChanges() -> [Line] {
        catchUp()
        if changed.isEmpty { return [] }
        let result = lines(changed)
        changed = Changes()
        return result
    }

    /// Writes every line, one per text line.
    public func appendJSONLines(to w: inout JSONWriter) {
        for line in allLines() {
            w.bytes.append(contentsOf: line.json)
            w.bytes.append(0x0A)
        }
    }

    private func lines(_ c: Changes) -> [Line] {
        var result: [Line] = []
        var w = JSONWriter(capacity: 256)
        func take(_ key: String, of delivery: UInt64?) {
            result.append(Line(key: key, json: w.bytes, delivery: delivery.map(Self.hex)))
            w.bytes.removeAll(keepingCapacity: true)
        }
        for i in c.entries.sorted() {
            let e = entries[Int(i)]
            w.raw("{\"delivery\":"); w.string(Self.hex(e.key))
            w.raw(",\"campaign\":"); w.string(campaignIDs[Int(e.campaign)].canonical)
            w.raw(",\"eid\":"); w.string(campaignNames[Int(e.campaign)])
            w.raw(",\"language\":"); w.string(languages[Int(e.language)])
            w.raw(",\"locale\":"); w.optionalString(locale(e.locale))
            w.raw(",\"beacon\":\""); beacons[Int(e.beacon)].appendPid(to: &w.bytes)
            w.raw(e.trigger == .enter ? "\",\"trigger\":\"enter\"" : "\",\"trigger\":\"exit\"")
            w.raw(",\"state\":"); w.integer(Int64(e.state))
            w.raw(",\"fired\":"); w.integer(Int64(e.fired))
            w.raw(",\"clicks\":[")
            for (n, id) in clickedIds(i).enumerated() {
                if n > 0 { w.raw(",") }
                w.string(id)
            }
            w.raw("]}")
            take("0:" + Self.hex(e.key), of: e.key)
        }
        for key in c.aliases {
            guard let entry = index[key] else { continue }
            w.raw("{\"alias\":"); w.string(Self.hex(key)); w.raw(",\"of\":"); w.string(Self.hex(entries[Int(entry)].key)); w.raw("}")
            take("1:" + Self.hex(key), of: entries[Int(entry)].key)
        }
        var handledEntry: [UInt64: UInt64] = [:]
        if !c.handled.isEmpty { for (entry, keys) in handledOf { for key in keys { handledEntry[key] = entry } } }
        for key in c.handled {
            w.raw("{\"handled\":"); w.string(Self.hex(key))
            if let entry = handledEntry[key] { w.raw(",\"of\":"); w.string(Self.hex(entry)) }
            w.raw("}")
            take("2:" + Self.hex(key), of: handledEntry[key])
        }
        for k in c.unhandled {
            let campaign = campaignIDs[Int(k.campaign)].canonical, language = languages[Int(k.language)]
            w.raw("{\"unhandled\":"); w.string(k.type)
            w.raw(",\"campaign\":"); w.string(campaign)
            w.raw(",\"eid\":"); w.string(campaignNames[Int(k.campaign)])
            w.raw(",\"language\":"); w.string(language)
            w.raw(",\"count\":"); w.integer(Int64(unhandled[k] ?? 0)); w.raw("}")
            // Type, campaign and language may hold any character: the key quotes them as JSON.
            take("3:" + JSONValue.makeArray([.string(campaign), .string(language), .string(k.type)]).compactText, of: nil)
        }
        for (key, fired, at) in c.tombstones {
            w.raw("{\"forgotten\":"); w.string(Self.hex(key)); w.raw(",\"fired\":"); w.integer(Int64(fired))
            w.raw(",\"at\":"); w.integer(at); w.raw("}")
            take("4:" + Self.hex(key), of: key)
        }
        for key in c.removed { result.append(Line(key: key, json: [], delivery: nil)) }
        return result
    }

    /// Takes back one line written by `appendJSONLines`; the message says what is missing.
    /// Loading does not count as a change.
    public mutating func load(line value: JSONValue) throws(LedgerLineError) {
        defer { changed = Changes() }
        try apply(savedLine: value)
    }

    /// Merges saved lines that another process may have written since this ledger read them
    /// (a shared store, inside the transaction that holds the lines' devices): a delivery's
    /// states and clicks only ever grow, so they are joined to what this ledger holds; a
    /// rescheduled id or a handled click is added; a tombstone forgets the delivery here too.
    /// `lines` in key order (a delivery before the lines naming it). Not a change: nothing is
    /// saved for it (the store holds it already).
    public mutating func merge(saved lines: [JSONValue]) throws(LedgerLineError) {
        catchUp()
        let records = recordsChanges
        recordsChanges = false
        defer { recordsChanges = records }
        for line in lines { try apply(savedLine: line) }
    }

    private mutating func apply(savedLine value: JSONValue) throws(LedgerLineError) {
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
            // A line saved before deliveries had a time has none: its window is taken as passed.
            let fired = value["fired"]?.integerValue.map { UInt32(clamping: $0) } ?? 0
            deliver(key: k, rule: -1, campaign: campaign, language: language, locale: locale, beacon: beaconSlot(beacon), trigger: trigger, fired: fired)
            let entry = index[k]!
            // Joined: a line read again (`merge`) may find the entry with states of its own.
            entries[Int(entry)].state |= UInt8(state)
            for element in value["clicks"]?.arrayElements ?? [] {
                if let id = element.value.stringValue { _ = markClick(entry, actionId: id) }
            }
        } else if value["alias"] != nil {
            let of = try key("of")
            guard let entry = index[of] else { throw LedgerLineError("`of` names no delivery before it") }
            let alias = try key("alias")
            if index[alias] == nil {
                index[alias] = entry
                aliasesOf[of, default: []].append(alias)
            }
        } else if value["handled"] != nil {
            let click = try key("handled")
            // Saved before clicks named their delivery: kept, as then.
            if handled.insert(click).inserted, value["of"] != nil { handledOf[try key("of"), default: []].append(click) }
        } else if value["unhandled"] != nil {
            let campaign = campaignSlot(CampaignID(canonical: try text("campaign")), eid: try text("eid"))
            let language = languageSlot(try text("language"))
            guard let count = value["count"]?.integerValue else { throw LedgerLineError("expected `count` as an integer") }
            // A line holds the running total, so the last one read wins.
            unhandled[.init(campaign: campaign, language: language, type: try text("unhandled"))] = Int(count)
        } else if value["forgotten"] != nil {
            guard let fired = value["fired"]?.integerValue else { throw LedgerLineError("expected `fired` as an integer") }
            forgetSaved(try key("forgotten"), fired: UInt32(clamping: fired))
        } else {
            throw LedgerLineError("expected a `delivery`, `alias`, `handled`, `unhandled` or `forgotten` line")
        }
    }

    static func hex(_ key: UInt64) -> String {
        let digits = String(key, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A saved ledger line that can not be read back.
public struct LedgerLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the line, and what was expected.
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
