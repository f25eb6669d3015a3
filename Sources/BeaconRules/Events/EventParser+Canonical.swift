/// The usual event line, read in one pass: the SPEC's own layout, keys in its order, no white
/// space, plain strings, a pid and a `...Z` time:
/// `{"id":"…","device":"…","type":"enter","beacon":"<42-char pid>","time":"…Z","locale":"…"}`
/// (`locale` may be left out). Recorders and location backends write exactly this, so nearly
/// every line of a trace takes this path; any other line (another order, white space, escapes,
/// non-ASCII text, an object beacon, epoch milliseconds, a problem to report) is left to the
/// general parser, which gives the same event for the lines both read. Tests hold the two together.
extension EventParser {
    @inline(__always)
    static func parseCanonical(_ b: UnsafeBufferPointer<UInt8>) -> BeaconEvent? {
        var dates = UTCDateCache()
        return scanUsualLayout(b, dates: &dates)?.event(b)
    }

    /// Where the parts of a line in the usual layout are, and what its beacon, kind and time are.
    struct UsualLine {
        var id: Range<Int>
        var device: Range<Int>
        var kind: EventKind
        var beacon: BeaconID
        var time: Timestamp
        var locale: Range<Int>?
        /// Where the pid and the time are written: when the line writes them as records do
        /// (`canonicalText`), a record's head copies them instead of formatting them.
        var pidText: Range<Int>
        var timeText: Range<Int>

        @inline(__always)
        func event(_ b: UnsafeBufferPointer<UInt8>) -> BeaconEvent {
            func text(_ range: Range<Int>) -> String { InPlaceEvent.text(UnsafeBufferPointer(rebasing: b[range])) }
            return BeaconEvent(id: text(id), device: text(device), kind: kind, beacon: beacon, time: time, locale: locale.map(text))
        }
    }

    /// The keys are matched as literals up to each value's opening quote; the values are read
    /// by the same in-place readers the general parser tries first. `dates`: the last date read
    /// (`InPlaceEventBatch` keeps one across its lines).
    @inline(__always)
    static func scanUsualLayout(_ b: UnsafeBufferPointer<UInt8>, dates: inout UTCDateCache) -> UsualLine? {
        var p = 0
        guard literal(b, &p, "{\"id\":"), let id = plainString(b, &p),
              literal(b, &p, ",\"device\":"), let device = plainString(b, &p),
              literal(b, &p, ",\"type\":"), let kind = knownType(b, &p),
              literal(b, &p, ",\"beacon\":") else { return nil }
        let pidStart = p + 1
        guard let beacon = quotedPid(b, &p), literal(b, &p, ",\"time\":") else { return nil }
        let timeStart = p + 1
        guard let time = quotedUTCTime(b, &p, dates: &dates) else { return nil }
        let timeEnd = p - 1
        var locale: Range<Int>?
        if literal(b, &p, ",\"locale\":") {
            guard let text = plainString(b, &p) else { return nil }
            locale = text
        }
        guard p + 1 == b.count, b[p] == 0x7D else { return nil }
        return UsualLine(
            id: id, device: device, kind: kind, beacon: beacon, time: time, locale: locale,
            pidText: pidStart..<pidStart + 42, timeText: timeStart..<timeEnd)
    }

    /// Reads `word` at `p` and moves past it; false (nothing moved) when the bytes differ. Compared
    /// eight, four, two and one bytes at a time (the key literals are 6 to 10 bytes).
    @inline(__always)
    private static func literal(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard p + n <= b.count else { return false }
        let line = UnsafeRawPointer(b.baseAddress! + p), text = UnsafeRawPointer(word.utf8Start)
        var k = 0
        while k + 8 <= n {
            guard line.loadUnaligned(fromByteOffset: k, as: UInt64.self) == text.loadUnaligned(fromByteOffset: k, as: UInt64.self) else { return false }
            k += 8
        }
        if k + 4 <= n {
            guard line.loadUnaligned(fromByteOffset: k, as: UInt32.self) == text.loadUnaligned(fromByteOffset: k, as: UInt32.self) else { return false }
            k += 4
        }
        if k + 2 <= n {
            guard line.loadUnaligned(fromByteOffset: k, as: UInt16.self) == text.loadUnaligned(fromByteOffset: k, as: UInt16.self) else { return false }
            k += 2
        }
        if k < n {
            guard line.load(fromByteOffset: k, as: UInt8.self) == text.load(fromByteOffset: k, as: UInt8.self) else { return false }
        }
        p += n
        return true
    }

    /// The contents of a non-empty quoted ASCII string with no escapes, `p` at its opening quote
    /// (moved past the closing one); nil for anything else.
    @inline(__always)
    private static func plainString(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) -> Range<Int>? {
        guard p < b.count, b[p] == 0x22 else { return nil }
        let start = p + 1
        let end = firstStringStop(b, from: start, stopsAtNonASCII: true)
        guard end < b.count, b[end] == 0x22, end > start else { return nil }
        p = end + 1
        return start..<end
    }

    /// Whether a pid and a time read from a line (`scanUsualLayout`) are written there exactly as
    /// a record writes them: the pid's hex digits in lower case, the time without `.000`
    /// (records leave out zero milliseconds).
    static func canonicalText(pid: UnsafeBufferPointer<UInt8>, time: UnsafeBufferPointer<UInt8>) -> (pid: Bool, time: Bool) {
        var upper: UInt64 = 0
        let raw = UnsafeRawPointer(pid.baseAddress!)
        for k in 0..<4 {
            // Hex digits, all below 0x80: the high bit of x + (0x80 - 0x41) and not of
            // x + (0x80 - 0x47) marks a byte in A...F.
            let w = raw.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)
            upper |= (w &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(w &+ 0x3939_3939_3939_3939) & 0x8080_8080_8080_8080
        }
        let zeroMillis = time.count == 24 && time[20] == 0x30 && time[21] == 0x30 && time[22] == 0x30
        return (upper == 0, !zeroMillis)
    }
}
