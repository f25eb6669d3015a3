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
        scanUsualLayout(b)?.event(b)
    }

    /// Where the parts of a line in the usual layout are, and what its beacon, kind and time are.
    struct UsualLine {
        var id: Range<Int>
        var device: Range<Int>
        var kind: EventKind
        var beacon: BeaconID
        var time: Timestamp
        var locale: Range<Int>?

        @inline(__always)
        func event(_ b: UnsafeBufferPointer<UInt8>) -> BeaconEvent {
            BeaconEvent(
                id: text(b, id), device: text(b, device), kind: kind, beacon: beacon, time: time,
                locale: locale.map { text(b, $0) })
        }
    }

    /// The keys are matched as literals up to each value's opening quote; the values are read
    /// by the same in-place readers the general parser tries first.
    @inline(__always)
    static func scanUsualLayout(_ b: UnsafeBufferPointer<UInt8>) -> UsualLine? {
        var p = 0
        guard literal(b, &p, "{\"id\":"), let id = plainString(b, &p),
              literal(b, &p, ",\"device\":"), let device = plainString(b, &p),
              literal(b, &p, ",\"type\":"), let kind = knownType(b, &p),
              literal(b, &p, ",\"beacon\":"), let beacon = quotedPid(b, &p),
              literal(b, &p, ",\"time\":"), let time = quotedUTCTime(b, &p) else { return nil }
        var locale: Range<Int>?
        if literal(b, &p, ",\"locale\":") {
            guard let text = plainString(b, &p) else { return nil }
            locale = text
        }
        guard p + 1 == b.count, b[p] == 0x7D else { return nil }
        return UsualLine(id: id, device: device, kind: kind, beacon: beacon, time: time, locale: locale)
    }

    /// Reads `word` at `p` and moves past it; false (nothing moved) when the bytes differ.
    @inline(__always)
    private static func literal(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard p + n <= b.count else { return false }
        let w = word.utf8Start
        for k in 0..<n where b[p + k] != w[k] { return false }
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

    @inline(__always)
    fileprivate static func text(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
}
