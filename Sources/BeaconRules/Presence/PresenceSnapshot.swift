/// The presence engine's state as bytes (compact JSON), so a server can keep open stays, pending
/// exits, dwells and delayed records in its state store and carry on after a restart.
extension PresenceEngine {
    /// Everything pending: the reorder buffer, the lanes of devices behind the stream, every
    /// tracker, and the delayed records of open stays.
    public func snapshot() -> [UInt8] {
        var w = JSONWriter(capacity: 256 + layer.trackers.count * 160)
        w.raw("{\"v\":1,\"newest\":"); w.integer(layer.newestTime)
        w.raw(",\"clock\":"); w.integer(layer.clock)
        w.raw(",\"floor\":"); w.integer(layer.floor)
        w.raw(",\"sequence\":"); w.integer(Int64(layer.sequence))
        w.raw(",\"buffer\":")
        Self.write(layer.buffer, into: &w)
        w.raw(",\"lanes\":[")
        let names = layer.lanes.isEmpty ? [:] : layer.deviceIndex.reduce(into: [Int: String]()) { $0[$1.value] = $1.key }
        for (i, device) in layer.lanes.keys.sorted().enumerated() {
            let lane = layer.lanes[device]!
            if i > 0 { w.raw(",") }
            w.raw("{\"device\":"); w.string(names[device]!)
            w.raw(",\"newest\":"); w.integer(lane.newest)
            w.raw(",\"buffer\":"); Self.write(lane.buffer, into: &w)
            w.raw("}")
        }
        w.raw("],\"trackers\":[")
        for (n, i) in layer.pairsInOrder.enumerated() {
            let key = layer.pairKeys[i]
            let t = layer.trackers[i]
            if n > 0 { w.raw(",") }
            w.raw("{\"device\":"); w.string(key.device)
            w.raw(",\"beacon\":\""); key.beacon.appendPid(to: &w.bytes)
            w.raw("\",\"inside\":"); w.bool(t.isInside)
            w.raw(",\"until\":"); w.integer(t.presentUntil)
            w.raw(",\"start\":"); if let s = t.stayStart { w.integer(s) } else { w.raw("null") }
            w.raw(",\"history\":"); w.bool(t.hasHistory)
            w.raw(",\"enter\":"); w.string(t.enterID)
            w.raw(",\"last\":"); w.string(t.lastID)
            w.raw(",\"givenExit\":"); w.bool(t.lastIsGivenExit)
            w.raw(",\"locale\":"); w.optionalString(t.locale)
            w.raw(",\"seen\":"); w.integer(t.lastInput)
            w.raw(",\"dwells\":[")
            for (k, d) in t.pendingDwells.enumerated() {
                if k > 0 { w.raw(",") }
                w.raw("["); w.integer(d.due); w.raw(","); w.integer(d.dwell); w.raw("]")
            }
            w.raw("],\"samples\":[")
            for k in t.filter.head..<t.filter.samples.count {
                if k > t.filter.head { w.raw(",") }
                w.raw("["); w.integer(t.filter.samples[k].time); w.raw(","); w.integer(Int64(t.filter.samples[k].rssi)); w.raw("]")
            }
            w.raw("],\"strong\":[")
            for (k, time) in t.strongReadings.enumerated() {
                if k > 0 { w.raw(",") }
                w.integer(time)
            }
            w.raw("],\"delayed\":[")
            for (k, r) in (delayed[key] ?? []).enumerated() {
                if k > 0 { w.raw(",") }
                w.raw("{\"eid\":"); w.string(r.eid)
                w.raw(",\"event\":"); w.string(r.event)
                w.raw(",\"fireDate\":"); w.integer(r.fireDate)
                w.raw("}")
            }
            w.raw("]}")
        }
        w.raw("]}")
        return w.bytes
    }

    /// Takes back a `snapshot()`. The settings are this engine's own (they may have changed).
    public mutating func restore(_ bytes: [UInt8]) throws(PresenceError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw PresenceError("the saved presence state is not JSON (\(error.message)); start with a new state file") }
        func int(_ v: JSONValue?, _ what: String) throws(PresenceError) -> Int64 {
            guard let n = v?.integerValue else { throw PresenceError("the saved presence state lacks `\(what)`; start with a new state file") }
            return n
        }
        guard value["v"]?.integerValue == 1 else { throw PresenceError("the saved presence state is of an unknown version; start with a new state file") }
        var layer = PresenceLayer(settings: settings, campaigns: engine.campaigns)
        layer.newestTime = try int(value["newest"], "newest")
        layer.clock = try int(value["clock"], "clock")
        layer.sequence = Int(try int(value["sequence"], "sequence"))
        layer.floor = value["floor"]?.integerValue ?? Int64.min
        // Devices behind the stream first, in their order, so that they end in that order.
        for element in value["lanes"]?.arrayElements ?? [] {
            guard let device = element.value["device"]?.stringValue else {
                throw PresenceError("a saved presence lane lacks its device; start with a new state file")
            }
            var lane = PresenceLane()
            lane.newest = try int(element.value["newest"], "newest")
            lane.buffer = try Self.buffer(element.value["buffer"], layer: &layer)
            let index = layer.register(device)
            layer.lanes[index] = lane
        }
        layer.buffer = try Self.buffer(value["buffer"], layer: &layer)
        var delayed: [PresenceKey: [DelayedRecord]] = [:]
        for element in value["trackers"]?.arrayElements ?? [] {
            let v = element.value
            guard let device = v["device"]?.stringValue, let pid = v["beacon"]?.stringValue, let beacon = BeaconID(pid: pid) else {
                throw PresenceError("a saved presence tracker lacks its device or beacon; start with a new state file")
            }
            let key = PresenceKey(device: device, beacon: beacon)
            var t = PresenceTracker(settings: settings)
            if case .bool(let b) = v["inside"] { t.isInside = b }
            t.presentUntil = try int(v["until"], "until")
            t.stayStart = v["start"]?.integerValue
            if case .bool(let b) = v["history"] { t.hasHistory = b }
            t.enterID = v["enter"]?.stringValue ?? ""
            t.lastID = v["last"]?.stringValue ?? ""
            if case .bool(let b) = v["givenExit"] { t.lastIsGivenExit = b }
            t.locale = v["locale"]?.stringValue
            // Saved before pairs were forgotten: as if last heard when the state was saved.
            t.lastInput = v["seen"]?.integerValue ?? layer.clock
            for d in v["dwells"]?.arrayElements ?? [] {
                let pair = d.value.arrayElements ?? []
                guard pair.count == 2, let due = pair[0].value.integerValue, let dwell = pair[1].value.integerValue else { continue }
                t.pendingDwells.append((due, dwell))
            }
            for s in v["samples"]?.arrayElements ?? [] {
                let pair = s.value.arrayElements ?? []
                guard pair.count == 2, let time = pair[0].value.integerValue, let rssi = pair[1].value.integerValue else { continue }
                t.filter.add(rssi: Int(rssi), at: time)
            }
            t.strongReadings = (v["strong"]?.arrayElements ?? []).compactMap { $0.value.integerValue }
            for r in v["delayed"]?.arrayElements ?? [] {
                guard let eid = r.value["eid"]?.stringValue, let event = r.value["event"]?.stringValue, let fireDate = r.value["fireDate"]?.integerValue else { continue }
                delayed[key, default: []].append(DelayedRecord(eid: eid, event: event, fireDate: fireDate))
            }
            layer.addPair(key, t)
        }
        layer.rebuildTimers()
        layer.rebuildZones()
        self.layer = layer
        self.delayed = delayed
    }

    /// A reorder buffer as a JSON array of `{"sequence":N,"input":LINE}`.
    static func write(_ buffer: MinHeap<PresenceLayer.Buffered>, into w: inout JSONWriter) {
        w.raw("[")
        for (i, item) in buffer.items.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"sequence\":"); w.integer(Int64(item.sequence))
            w.raw(",\"input\":"); write(item.input, into: &w)
            w.raw("}")
        }
        w.raw("]")
    }

    /// A reorder buffer back from `write(_:into:)`, its devices registered in `layer`.
    static func buffer(_ value: JSONValue?, layer: inout PresenceLayer) throws(PresenceError) -> MinHeap<PresenceLayer.Buffered> {
        var buffer = MinHeap<PresenceLayer.Buffered>()
        for element in value?.arrayElements ?? [] {
            guard let line = element.value["input"]?.compactText, let sequence = element.value["sequence"]?.integerValue else { continue }
            let parsed = Array(line.utf8).withUnsafeBufferPointer { bytes in
                Result { () throws(EventError) in try EventParser.parsePresenceInput(line: bytes, fallbackID: "") }
            }
            switch parsed {
            case .success(let input):
                let device = layer.lanesPerDevice ? layer.register(PresenceKey(of: input).device) : -1
                buffer.push(PresenceLayer.Buffered(time: input.time.milliseconds, sequence: Int(sequence), input: input, device: device))
            case .failure(let error): throw PresenceError("a saved presence input does not parse: \(error.message)")
            }
        }
        return buffer
    }

    /// An input as the event line it came from (times as epoch ms), for the snapshot's buffer.
    static func write(_ input: InputEvent, into w: inout JSONWriter) {
        let id: String, device: String, beacon: BeaconID, time: Timestamp, locale: String?
        w.raw("{\"type\":")
        switch input {
        case .beacon(let e):
            w.string(e.kind.name)
            (id, device, beacon, time, locale) = (e.id, e.device, e.beacon, e.time, e.locale)
        case .sighting(let s, _):
            w.raw("\"sighting\",\"rssi\":"); w.integer(Int64(s.rssi))
            (id, device, beacon, time, locale) = (s.id, s.device, s.beacon, s.time, s.locale)
        }
        w.raw(",\"id\":"); w.string(id)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"beacon\":\""); beacon.appendPid(to: &w.bytes)
        w.raw("\",\"time\":"); w.integer(time.milliseconds)
        if let locale { w.raw(",\"locale\":"); w.string(locale) }
        w.raw("}")
    }
}
