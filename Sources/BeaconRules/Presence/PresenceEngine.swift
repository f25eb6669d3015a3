/// The rules engine behind the presence layer: input lines (enter, exit, sighting) in, records and
/// withdrawals out as JSON lines, in event-time order. The line pipeline (`LinePipeline`) holds
/// one; the tests also feed it lines directly (`replay(line:fallbackID:into:)`).
///
/// Given enter/exit events pass straight to the rules (the fast path, today's records exactly)
/// unless `settings.flickerControl` is on; sightings always go through the presence layer.
public struct PresenceEngine<Store: SuppressionStore> {
    /// The rules the events (given or derived) go to.
    public var engine: RulesEngine<Store>
    /// Turns sightings (and, under flicker control, given events) into enters, exits and dwells.
    public var layer: PresenceLayer
    /// Delayed enter-side records of each open stay, withdrawn if the device leaves before their fireDate.
    var delayed: [PresenceKey: [DelayedRecord]] = [:]
    /// Every presence change handed to the rules, kept only when `keepsLog` (for `timeline`).
    public var keepsLog = false
    /// The presence changes handed to the rules, in order, when `keepsLog` is set; else empty.
    public private(set) var log: [PresenceOutput] = []

    /// A record to withdraw if the stay ends before its fire date; by eid, so it survives a reload.
    struct DelayedRecord {
        var eid: String
        var event: String
        var fireDate: Int64
    }

    /// Presence in front of `engine`, tuned by `settings`.
    public init(engine: RulesEngine<Store>, settings: PresenceSettings) {
        self.engine = engine
        self.layer = PresenceLayer(settings: settings, campaigns: engine.campaigns)
    }

    /// The settings the presence layer was made with.
    public var settings: PresenceSettings { layer.settings }

    /// No presence state: no stays open, nothing pending.
    public mutating func resetPresence() {
        layer = PresenceLayer(settings: settings, campaigns: engine.campaigns)
        delayed = [:]
    }

    /// One input line in; whatever it (and the time it moves on) produces appended to `writer`.
    /// Blank lines are skipped (returns false). The tests' way in, a line at a time; `replay`
    /// and `serve` go through `LinePipeline`, which batches and prefetches.
    @discardableResult
    public mutating func replay(
        line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String, into writer: inout JSONWriter
    ) throws(EventError) -> Bool {
        if EventParser.isBlank(line) { return false }
        let input = try EventParser.parsePresenceInput(line: line, fallbackID: fallbackID())
        try add(input, into: &writer)
        return true
    }

    /// One parsed input in. A given event without flicker control is matched at once.
    public mutating func add(_ input: InputEvent, into writer: inout JSONWriter) throws(EventError) {
        if case .beacon(let event) = input, !settings.flickerControl {
            engine.write(event, into: &writer)
            return
        }
        do { try layer.add(input) } catch { throw EventError(error.message) }
        drain(into: &writer)
    }

    /// End of input: buffered input is processed and pending exits resolved (`PresenceLayer.finish`).
    public mutating func finish(into writer: inout JSONWriter) {
        layer.finish()
        drain(into: &writer)
    }

    /// Swaps in a rules engine with new campaigns (a reload), keeping presence as it is.
    public mutating func replaceEngine(_ engine: RulesEngine<Store>) {
        self.engine = engine
        layer.replaceCampaigns(engine.campaigns)
    }

    /// Moves time on without input (a server's clock).
    public mutating func advance(to time: Timestamp, into writer: inout JSONWriter) {
        layer.advance(to: time.milliseconds)
        drain(into: &writer)
    }

    private mutating func drain(into writer: inout JSONWriter) {
        let outputs = layer.take()
        if outputs.isEmpty { return }
        if keepsLog { log.append(contentsOf: outputs) }
        for output in outputs {
            switch output {
            case .enter(let event):
                let key = PresenceKey(device: event.device, beacon: event.beacon)
                delayed[key] = nil
                engine.write(event, into: &writer)
                remember(event, key: key)
            case .dwell(let event, let dwell):
                engine.writeDwell(event, dwellMilliseconds: dwell, into: &writer)
                remember(event, key: PresenceKey(device: event.device, beacon: event.beacon))
            case .exit(let event, let departedAt):
                let key = PresenceKey(device: event.device, beacon: event.beacon)
                if let records = delayed.removeValue(forKey: key) {
                    for record in records where record.fireDate > departedAt.milliseconds {
                        writeWithdrawal(record, exit: event, into: &writer)
                    }
                }
                engine.write(event, into: &writer)
            }
        }
    }

    /// Keeps the event's records that a delay put after the event time (Sensorberg's delayed action).
    private mutating func remember(_ event: BeaconEvent, key: PresenceKey) {
        let time = event.time.milliseconds
        let campaigns = engine.campaigns.campaigns
        var found: [DelayedRecord] = []
        engine.forEachLastFiring { index, fireDate in
            if campaigns[index].delayMilliseconds > 0 && fireDate > time {
                found.append(DelayedRecord(eid: campaigns[index].eid, event: event.id, fireDate: fireDate))
            }
        }
        if !found.isEmpty { delayed[key, default: []].append(contentsOf: found) }
    }

    /// `{"kind":"withdrawn","id":RECORD_ID,...}`: the record of that id must not be shown.
    private func writeWithdrawal(_ record: DelayedRecord, exit: BeaconEvent, into writer: inout JSONWriter) {
        let eid = record.eid
        writer.raw("{\"kind\":\"withdrawn\",\"id\":")
        writer.string(eid + ":" + exit.device + ":" + record.event)
        writer.raw(",\"campaign\":")
        writer.string(eid)
        writer.raw(",\"device\":")
        writer.string(exit.device)
        writer.raw(",\"event\":")
        writer.string(exit.id)
        writer.raw(",\"beacon\":\"")
        exit.beacon.appendPid(to: &writer.bytes)
        writer.raw("\",\"fireDate\":\"")
        Timestamp(milliseconds: record.fireDate).appendRFC3339(to: &writer.bytes)
        writer.raw("\",\"withdrawnAt\":\"")
        exit.time.appendRFC3339(to: &writer.bytes)
        writer.raw("\"}\n")
    }
}
