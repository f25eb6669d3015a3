import Synchronization

/// A beacon event whose strings are UTF-8 bytes where they lie, not `String`s: the hot path
/// reads lines in the usual layout into these (`InPlaceEventBatch`), and the engine hashes,
/// compares and copies the bytes, so no field of the line becomes a `String`.
///
/// Its bytes belong to someone else (a batch, or `with`'s strings) and are valid only as long as
/// the owner says. `package`, as the batch is: the line pipeline and the engine's batch path use
/// them; a user of the library writes `BeaconEvent`s (`RulesEngine.write(_:into:)`), or lines
/// through `LinePipeline`, which reads the usual layout in place for them.
@usableFromInline package struct InPlaceEvent {
    package var id: UnsafeBufferPointer<UInt8>
    package var device: UnsafeBufferPointer<UInt8>
    /// Enter or exit.
    @usableFromInline package var kind: EventKind
    /// The beacon the event is at.
    @usableFromInline package var beacon: BeaconID
    /// The event time, which every rule is decided by.
    @usableFromInline package var time: Timestamp
    /// nil when the event names no locale.
    package var locale: UnsafeBufferPointer<UInt8>?
    /// The beacon's pid and the time as a record writes them, when the line had them so (the
    /// record's head copies them), else nil (the head formats them).
    package var pidText: UnsafeBufferPointer<UInt8>? = nil
    package var timeText: UnsafeBufferPointer<UInt8>? = nil
    /// The id and device are known to need no escapes in JSON (plain ASCII with no quote,
    /// backslash or control byte, as the usual layout's strings are); false: not known.
    package var isPlain = false

    /// The event with `String`s, for the paths that keep or show its fields (rare on the hot path:
    /// a record tail rendered for the first time).
    @usableFromInline package var event: BeaconEvent {
        BeaconEvent(id: Self.text(id), device: Self.text(device), kind: kind, beacon: beacon, time: time, locale: locale.map(Self.text))
    }

    /// The event as far as a record's tail depends on it (kind and locale; beacon and time kept),
    /// with an empty id and device: rendering a tail then builds no id strings.
    var tailEvent: BeaconEvent {
        BeaconEvent(id: "", device: "", kind: kind, beacon: beacon, time: time, locale: locale.map(Self.text))
    }

    /// The device's locale as a `String`, nil when the event names none.
    @usableFromInline package var localeText: String? { locale.map(Self.text) }

    /// Runs `body` on `event` read in place (its strings' own bytes, or a copy of them on the stack).
    @usableFromInline package static func with<R>(_ event: BeaconEvent, _ body: (InPlaceEvent) throws -> R) rethrows -> R {
        var id = event.id, device = event.device
        return try id.withUTF8 { id in
            try device.withUTF8 { device in
                guard var locale = event.locale else {
                    return try body(InPlaceEvent(id: id, device: device, kind: event.kind, beacon: event.beacon, time: event.time, locale: nil))
                }
                return try locale.withUTF8 { locale in
                    try body(InPlaceEvent(id: id, device: device, kind: event.kind, beacon: event.beacon, time: event.time, locale: locale))
                }
            }
        }
    }

    @inline(__always)
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// The events of a batch, their strings kept together in one buffer: lines in the usual layout
/// read without a `String` per field (`appendUsualLayout`), or `BeaconEvent`s copied in. Events
/// are handed out as `InPlaceEvent`s that point into the buffer, valid until the batch next
/// changes. `package`: the public `SuppressionStore` does not name it, and the stores that read
/// ahead for a batch adopt the package's `PrefetchingSuppressionStore`.
@usableFromInline package struct InPlaceEventBatch: ~Copyable {
    /// Where an event's parts are: offsets into the buffer (a locale count of -1: no locale).
    private struct Parts {
        var id: Int32
        var idCount: Int32
        var device: Int32
        var deviceCount: Int32
        var locale: Int32
        var localeCount: Int32
        /// -1: not written as records write it.
        var pidText: Int32 = -1
        var timeText: Int32 = -1
        var timeTextCount: Int32 = 0
        var isPlain = false
        var kind: EventKind
        var beacon: BeaconID
        var time: Timestamp
    }

    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var used = 0
    private var parts: [Parts] = []
    /// The date of the last usual line's time, kept across `removeAll`: lines of one day convert
    /// their date once.
    private var dates = UTCDateCache()
    /// Unique to this batch's events since it was last emptied (a process-wide count): events are
    /// only appended after it, so (stamp, index) names one event. The engine uses it to know that
    /// what it prefetched for a batch is still about the same events.
    @usableFromInline package private(set) var stamp: UInt64

    private static let stamps = Atomic<UInt64>(0)
    private static func nextStamp() -> UInt64 { stamps.add(1, ordering: .relaxed).newValue }

    /// The most bytes of strings (lines) a batch holds: its offsets are 32-bit. An event or line
    /// that does not fit is not appended (`canHold`, `appendUsualLayout`); the caller writes it
    /// on its own (`RulesEngine.write(_: BeaconEvent, into:)`).
    @usableFromInline package let byteLimit: Int

    /// Room for `bytes` of strings (lines) before the buffer grows.
    @usableFromInline package init(bytes: Int = 1 << 13) {
        self.init(bytes: bytes, byteLimit: Int(Int32.max))
    }

    /// A batch that holds at most `byteLimit` bytes (tests: the limit without gigabytes).
    init(bytes: Int, byteLimit: Int) {
        self.byteLimit = min(byteLimit, Int(Int32.max))
        capacity = max(bytes, 64)
        storage = .allocate(capacity: capacity)
        parts.reserveCapacity(64)
        stamp = Self.nextStamp()
    }

    deinit { storage.deallocate() }

    /// How many events the batch holds.
    @usableFromInline package var count: Int { parts.count }
    /// Whether the batch holds no event.
    @usableFromInline package var isEmpty: Bool { parts.isEmpty }
    /// Bytes of strings (lines) held, at most `byteLimit`.
    @usableFromInline package var byteCount: Int { used }

    /// Whether `event`'s strings fit in what is left of `byteLimit`.
    @usableFromInline package func canHold(_ event: BeaconEvent) -> Bool {
        let bytes = event.id.utf8.count + event.device.utf8.count + (event.locale?.utf8.count ?? 0)
        return bytes <= byteLimit - used
    }

    /// Forgets every event, keeping the buffer.
    @usableFromInline package mutating func removeAll() {
        used = 0
        parts.removeAll(keepingCapacity: true)
        stamp = Self.nextStamp()
    }

    /// The `i`th event appended, pointing into the batch's buffer.
    @inline(__always)
    @usableFromInline package subscript(i: Int) -> InPlaceEvent {
        let p = parts[i]
        let base = UnsafePointer(storage)
        return InPlaceEvent(
            id: UnsafeBufferPointer(start: base + Int(p.id), count: Int(p.idCount)),
            device: UnsafeBufferPointer(start: base + Int(p.device), count: Int(p.deviceCount)),
            kind: p.kind, beacon: p.beacon, time: p.time,
            locale: p.localeCount < 0 ? nil : UnsafeBufferPointer(start: base + Int(p.locale), count: Int(p.localeCount)),
            pidText: p.pidText < 0 ? nil : UnsafeBufferPointer(start: base + Int(p.pidText), count: 42),
            timeText: p.timeText < 0 ? nil : UnsafeBufferPointer(start: base + Int(p.timeText), count: Int(p.timeTextCount)),
            isPlain: p.isPlain)
    }

    /// Appends the event of a line in the usual layout (`EventParser.scanUsualLayout`), keeping a
    /// copy of the line; false (nothing appended) for any other line, which the general parser
    /// reads, and for a line longer than what is left of `byteLimit`.
    @usableFromInline package mutating func appendUsualLayout(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.count <= byteLimit - used, let usual = EventParser.scanUsualLayout(line, dates: &dates) else { return false }
        let at = room(line.count)
        (storage + at).update(from: line.baseAddress!, count: line.count)
        used = at + line.count
        let o = Int32(at)
        let canonical = EventParser.canonicalText(
            pid: UnsafeBufferPointer(rebasing: line[usual.pidText]), time: UnsafeBufferPointer(rebasing: line[usual.timeText]))
        parts.append(Parts(
            id: o + Int32(usual.id.lowerBound), idCount: Int32(usual.id.count),
            device: o + Int32(usual.device.lowerBound), deviceCount: Int32(usual.device.count),
            locale: o + Int32(usual.locale?.lowerBound ?? 0), localeCount: usual.locale.map { Int32($0.count) } ?? -1,
            pidText: canonical.pid ? o + Int32(usual.pidText.lowerBound) : -1,
            timeText: canonical.time ? o + Int32(usual.timeText.lowerBound) : -1, timeTextCount: Int32(usual.timeText.count),
            isPlain: true, kind: usual.kind, beacon: usual.beacon, time: usual.time))
        return true
    }

    /// Appends `event`, copying its strings: only when the batch `canHold` it.
    @usableFromInline package mutating func append(_ event: BeaconEvent) {
        let id = copy(event.id), device = copy(event.device)
        let locale = event.locale.map { copy($0) }
        parts.append(Parts(
            id: id.0, idCount: id.1, device: device.0, deviceCount: device.1,
            locale: locale?.0 ?? 0, localeCount: locale?.1 ?? -1,
            kind: event.kind, beacon: event.beacon, time: event.time))
    }

    private mutating func copy(_ text: String) -> (Int32, Int32) {
        let n = text.utf8.count
        let at = room(n)
        var i = at
        for byte in text.utf8 {
            storage[i] = byte
            i += 1
        }
        used = at + n
        return (Int32(at), Int32(n))
    }

    /// Where `n` more bytes go (the buffer doubled as needed; offsets stay valid).
    private mutating func room(_ n: Int) -> Int {
        precondition(n <= byteLimit - used, "a batch's events hold at most byteLimit bytes of strings (canHold)")
        if used + n > capacity {
            var larger = capacity * 2
            while used + n > larger { larger *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            grown.update(from: storage, count: used)
            storage.deallocate()
            storage = grown
            capacity = larger
        }
        return used
    }
}
