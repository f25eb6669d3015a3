/// A record's head, `{"kind":...` through `"fireDate":"..."`, is four runs: two that depend only
/// on the campaign and two that depend only on the event.
///
///     {"kind":"notification","id":"EID   :DEVICE:EVENT   ","campaign":"EID   ","device":"DEVICE",...,"fireDate":"TIME"
///     └──── campaign: idOpening ─────┘   └ event: ─────┘  └ campaign: ────┘  └──── event: fields ────────────────────┘
///                                          idClosing         campaignField
///
/// The hot path renders the campaign runs once at load and the event runs once per event, then
/// joins them per record with four copies. The straightforward path (`NotificationRecord.appendJSON`)
/// writes the same runs with the same functions, so the two cannot drift apart.
enum RecordHead {
    /// `{"kind":"notification","id":"EID` (or `"silent"`): `eid` is escaped string contents.
    static func appendIDOpening(to out: inout [UInt8], kind: NotificationRecord.Kind, eid: UnsafeBufferPointer<UInt8>) {
        out.appendLiteral(kind == .notification ? #"{"kind":"notification","id":""# : #"{"kind":"silent","id":""#)
        out.append(contentsOf: eid)
    }

    /// `:DEVICE:EVENT` (the rest of the record id).
    static func appendIDClosing(to out: inout [UInt8], device: UnsafeBufferPointer<UInt8>, event: UnsafeBufferPointer<UInt8>) {
        out.append(0x3A)
        out.append(contentsOf: device)
        out.append(0x3A)
        out.append(contentsOf: event)
    }

    /// `","campaign":"EID`.
    static func appendCampaignField(to out: inout [UInt8], eid: UnsafeBufferPointer<UInt8>) {
        out.appendLiteral(#"","campaign":""#)
        out.append(contentsOf: eid)
    }

    /// `","device":"DEVICE","event":"EVENT","trigger":"enter","beacon":"PID","fireDate":"`: the
    /// fire date and its closing quote follow.
    static func appendEventFields(
        to out: inout [UInt8], device: UnsafeBufferPointer<UInt8>, event: UnsafeBufferPointer<UInt8>,
        trigger: EventKind, pid: UnsafeBufferPointer<UInt8>
    ) {
        out.appendLiteral(#"","device":""#)
        out.append(contentsOf: device)
        out.appendLiteral(#"","event":""#)
        out.append(contentsOf: event)
        out.appendLiteral(trigger == .enter ? #"","trigger":"enter","beacon":""# : #"","trigger":"exit","beacon":""#)
        out.append(contentsOf: pid)
        out.appendLiteral(#"","fireDate":""#)
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
                RecordHead.appendIDOpening(to: &bytes, kind: campaigns.rules[i].isSilent ? .silent : .notification, eid: eid)
                offsets.append(bytes.count)
                RecordHead.appendCampaignField(to: &bytes, eid: eid)
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

    mutating func prepare(_ event: BeaconEvent) {
        var out: [UInt8] = []
        swap(&out, &bytes)
        // Moved out and back (swap), not copied: a copy would retain their buffers per event.
        var device = JSONWriter(), id = JSONWriter()
        swap(&device, &escapedDevice)
        swap(&id, &escapedID)
        var deviceUnescaped = true, idUnescaped = true
        // The closures below capture these, not `event`: capturing the event copied it (three
        // string retains and releases) per closure.
        let kind = event.kind, beacon = event.beacon, eventTime = event.time
        Self.withEscaped(event.device, &device, &deviceUnescaped) { device in
            Self.withEscaped(event.id, &id, &idUnescaped) { id in
                let needed = 2 * (device.count + id.count) + 200
                if out.count < needed { out = [UInt8](repeating: 0, count: needed * 2) }
                out.withUnsafeMutableBufferPointer { buffer in
                    let start = buffer.baseAddress!
                    var p = start
                    @inline(__always) func copy(_ run: UnsafeBufferPointer<UInt8>) {
                        p.update(from: run.baseAddress!, count: run.count)
                        p += run.count
                    }
                    @inline(__always) func copy(_ text: StaticString) {
                        p.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
                        p += text.utf8CodeUnitCount
                    }
                    // The same runs as `RecordHead.appendIDClosing` and `appendEventFields`, written in place.
                    copy(":"); copy(device); copy(":"); copy(id)
                    idClosing = 0..<(p - start)
                    copy(#"","device":""#); copy(device); copy(#"","event":""#); copy(id)
                    copy(kind == .enter ? #"","trigger":"enter","beacon":""# : #"","trigger":"exit","beacon":""#)
                    beacon.writePid(to: p)
                    p += 42
                    copy(#"","fireDate":""#)
                    fields = idClosing.upperBound..<(p - start)
                    if Timestamp.fourDigitYears.contains(eventTime.milliseconds) {
                        p += eventTime.writeRFC3339(to: p)
                    } else {
                        var far: [UInt8] = []
                        eventTime.appendRFC3339(to: &far)
                        far.withUnsafeBufferPointer { copy($0) }
                    }
                    p.pointee = 0x22
                    p += 1
                    time = fields.upperBound..<(p - start)
                }
            }
        }
        swap(&device, &escapedDevice)
        swap(&id, &escapedID)
        idClosingIsUnescaped = deviceUnescaped && idUnescaped
        swap(&out, &bytes)
    }

    /// `text`'s UTF-8 as JSON string contents: straight from its storage when it needs no escapes.
    /// `unescaped` is cleared when the text needed escapes.
    private static func withEscaped(_ text: String, _ scratch: inout JSONWriter, _ unescaped: inout Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if !JSONWriter.needsEscapes(utf8) { body(utf8) } else { unescaped = false; escape(utf8, &scratch, body) }
        }
        if done == nil {
            var copy = text
            copy.withUTF8 { utf8 in
                if JSONWriter.needsEscapes(utf8) { unescaped = false }
                escape(utf8, &scratch, body)
            }
        }
    }

    private static func escape(_ utf8: UnsafeBufferPointer<UInt8>, _ scratch: inout JSONWriter, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        scratch.bytes.removeAll(keepingCapacity: true)
        scratch.escapedContents(utf8)
        scratch.bytes.withUnsafeBufferPointer(body)
    }
}

extension Array where Element == UInt8 {
    /// Appends a literal's bytes (no `String` walked).
    @inline(__always)
    mutating func appendLiteral(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
