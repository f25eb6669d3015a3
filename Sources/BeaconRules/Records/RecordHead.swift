/// A record's head, `{"kind":...` through `"fireDate":"..."`, is four runs: two that depend only
/// on the campaign and two that depend only on the event.
///
///     {"kind":"notification","id":"EID   :DEVICE:EVENT   ","campaign":"EID   ","device":"DEVICE",...,"fireDate":"TIME"
///     └──── campaign: idOpening ─────┘   └ event: ─────┘  └ campaign: ────┘  └──── event: fields ────────────────────┘
///                                          idClosing         campaignField
///
/// The hot path renders the campaign runs once at load and the event runs once per event, then
/// joins them per record with four copies (through a `ByteCursor`). The straightforward path (`NotificationRecord.appendJSON`)
/// writes the same runs with the same functions, so the two cannot drift apart.
enum RecordHead {
    /// The most bytes the campaign's two runs take for an escaped eid of `eid` bytes.
    static func campaignRoom(eid: Int) -> Int { 2 * eid + 48 }

    /// The most bytes the event's two runs, a fire date and its closing quote take for escaped
    /// device and event ids of `device` and `event` bytes.
    static func eventRoom(device: Int, event: Int) -> Int { 2 * (device + event) + 120 + Timestamp.longestRFC3339 }

    /// `{"kind":"notification","id":"EID` (or `"silent"`): `eid` is escaped string contents.
    static func writeIDOpening(_ c: inout ByteCursor, kind: NotificationRecord.Kind, eid: UnsafeBufferPointer<UInt8>) {
        c.copy(kind == .notification ? #"{"kind":"notification","id":""# : #"{"kind":"silent","id":""#)
        c.copy(eid)
    }

    /// `:DEVICE:EVENT` (the rest of the record id).
    static func writeIDClosing(_ c: inout ByteCursor, device: UnsafeBufferPointer<UInt8>, event: UnsafeBufferPointer<UInt8>) {
        c.byte(0x3A)
        c.copy(device)
        c.byte(0x3A)
        c.copy(event)
    }

    /// `","campaign":"EID`.
    static func writeCampaignField(_ c: inout ByteCursor, eid: UnsafeBufferPointer<UInt8>) {
        c.copy(#"","campaign":""#)
        c.copy(eid)
    }

    /// `","device":"DEVICE","event":"EVENT","trigger":"enter","beacon":"PID","fireDate":"`: the
    /// fire date and its closing quote follow.
    /// `pidText`: the pid as `c.pid` writes it, copied instead (the event's line had it so).
    static func writeEventFields(
        _ c: inout ByteCursor, device: UnsafeBufferPointer<UInt8>, event: UnsafeBufferPointer<UInt8>,
        trigger: EventKind, beacon: BeaconID, pidText: UnsafeBufferPointer<UInt8>? = nil
    ) {
        c.copy(#"","device":""#)
        c.copy(device)
        c.copy(#"","event":""#)
        c.copy(event)
        c.copy(trigger == .enter ? #"","trigger":"enter","beacon":""# : #"","trigger":"exit","beacon":""#)
        if let pidText { c.copy(pidText) } else { c.pid(beacon) }
        c.copy(#"","fireDate":""#)
    }

    /// The fire date and the quote that closes it.
    static func writeFireDate(_ c: inout ByteCursor, _ time: Timestamp) {
        c.time(time)
        c.byte(0x22)
    }
}

/// Every campaign's two head runs (`RecordHead`), rendered once: campaign i's `idOpening` is
/// `bytes[offsets[2i]..<offsets[2i+1]]` and its `campaignField` `bytes[offsets[2i+1]..<offsets[2i+2]]`.
struct CampaignHeads: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var offsets: [Int] = [0]

    init(_ campaigns: CampaignSet) {
        bytes.reserveCapacity(campaigns.eidBytes.count * 2 + campaigns.count * 44)
        offsets.reserveCapacity(campaigns.count * 2 + 1)
        campaigns.eidBytes.withUnsafeBufferPointer { eids in
            for i in 0..<campaigns.count {
                let eid = UnsafeBufferPointer(rebasing: eids[campaigns.eidOffsets[i]..<campaigns.eidOffsets[i + 1]])
                let kind: NotificationRecord.Kind = campaigns.rules[i].isSilent ? .silent : .notification
                bytes.append(writingAtMost: RecordHead.campaignRoom(eid: eid.count)) { RecordHead.writeIDOpening(&$0, kind: kind, eid: eid) }
                offsets.append(bytes.count)
                bytes.append(writingAtMost: RecordHead.campaignRoom(eid: eid.count)) { RecordHead.writeCampaignField(&$0, eid: eid) }
                offsets.append(bytes.count)
            }
        }
    }
}

/// The event's two head runs (`RecordHead`) and its time, rendered once per event however many
/// records it yields, into one reused buffer: `idClosing`, then `fields` directly followed by
/// `time` (the event time and the closing quote), so a record fired at event time copies
/// `fields` and `time` as one run.
struct EventHead {
    /// Scratch of fixed size (grown when an event needs more); the runs are at the ranges below.
    var bytes: [UInt8] = []
    var idClosing = 0..<0
    /// Whether `idClosing` is `:` + device + `:` + event id as given (neither needed escapes), so
    /// it can stand for them where the unescaped record id is wanted (the ledger's key).
    var idClosingIsUnescaped = false
    var fields = 0..<0
    var time = 0..<0
    /// The escaped device or event id when it needs escapes (rare), reused.
    private var escapedDevice = JSONWriter()
    private var escapedID = JSONWriter()

    mutating func prepare(_ event: InPlaceEvent) {
        var out: [UInt8] = []
        swap(&out, &bytes)
        let deviceUnescaped = event.isPlain || !JSONWriter.needsEscapes(event.device)
        let idUnescaped = event.isPlain || !JSONWriter.needsEscapes(event.id)
        if deviceUnescaped && idUnescaped {
            write(event, device: event.device, id: event.id, into: &out)
        } else {
            // Moved out and back (swap), not copied: a copy would retain their buffers per event.
            var device = JSONWriter(), id = JSONWriter()
            swap(&device, &escapedDevice)
            swap(&id, &escapedID)
            Self.escape(event.device, &device) { device in
                Self.escape(event.id, &id) { id in write(event, device: device, id: id, into: &out) }
            }
            swap(&device, &escapedDevice)
            swap(&id, &escapedID)
        }
        idClosingIsUnescaped = deviceUnescaped && idUnescaped
        swap(&out, &bytes)
    }

    /// The runs, with `device` and `id` as escaped string contents.
    private mutating func write(_ event: InPlaceEvent, device: UnsafeBufferPointer<UInt8>, id: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let needed = RecordHead.eventRoom(device: device.count, event: id.count)
        if out.count < needed { out = [UInt8](repeating: 0, count: needed * 2) }
        out.withUnsafeMutableBufferPointer { buffer in
            var c = ByteCursor(buffer.baseAddress!)
            RecordHead.writeIDClosing(&c, device: device, event: id)
            idClosing = 0..<c.count
            RecordHead.writeEventFields(&c, device: device, event: id, trigger: event.kind, beacon: event.beacon, pidText: event.pidText)
            fields = idClosing.upperBound..<c.count
            if let text = event.timeText {
                c.copy(text)
                c.byte(0x22)
            } else {
                RecordHead.writeFireDate(&c, event.time)
            }
            time = fields.upperBound..<c.count
        }
    }

    private static func escape(_ utf8: UnsafeBufferPointer<UInt8>, _ scratch: inout JSONWriter, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        scratch.bytes.removeAll(keepingCapacity: true)
        scratch.escapedContents(utf8)
        scratch.bytes.withUnsafeBufferPointer(body)
    }
}
