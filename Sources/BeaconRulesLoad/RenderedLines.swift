/// A connection's requests, rendered before the clock starts: the bytes of every line, where each
/// line ends (just past its `\n`), and, for lines that carry the wall clock, where their time's
/// digits are.
struct RenderedLines: Sendable {
    var bytes: [UInt8] = []
    /// Where each line ends, just past its `\n`.
    var ends: [Int] = []
    /// Where each line's 13 digits of milliseconds since 1970 start, filled in as the line is sent
    /// (`WallClockStamp`); empty when the lines carry their own times.
    var timeFields: [Int] = []

    init(capacity lines: Int, bytesPerLine: Int, stampsTime: Bool) {
        bytes.reserveCapacity(lines * bytesPerLine)
        ends.reserveCapacity(lines)
        if stampsTime { timeFields.reserveCapacity(lines) }
    }

    /// Appends one line (its `\n` included).
    mutating func append(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        ends.append(bytes.count)
    }
}
