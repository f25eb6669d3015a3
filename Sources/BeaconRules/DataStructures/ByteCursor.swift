/// A write position in a buffer the caller has sized: record heads are written and joined through
/// one with plain copies, no `Array` bookkeeping per run.
struct ByteCursor {
    let start: UnsafeMutablePointer<UInt8>
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        position = start
    }

    /// The bytes written so far.
    var count: Int { position - start }

    /// The bytes written so far, as a buffer.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Starts writing from the beginning again.
    mutating func rewind() { position = start }

    @inline(__always)
    mutating func copy(_ run: UnsafeBufferPointer<UInt8>) {
        guard let base = run.baseAddress else { return }
        position.update(from: base, count: run.count)
        position += run.count
    }

    @inline(__always)
    mutating func copy(_ text: StaticString) {
        position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        position += text.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        position.pointee = value
        position += 1
    }

    /// The 42-char pid.
    @inline(__always)
    mutating func pid(_ beacon: BeaconID) {
        beacon.writePid(to: position)
        position += 42
    }

    /// The RFC 3339 form (at most `Timestamp.longestRFC3339` bytes).
    @inline(__always)
    mutating func time(_ time: Timestamp) {
        position += time.writeRFC3339(to: position)
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a cursor, at most `count` bytes.
    mutating func append(writingAtMost count: Int, _ body: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var cursor = ByteCursor(buffer.baseAddress!)
            body(&cursor)
            append(contentsOf: cursor.written)
        }
    }
}
