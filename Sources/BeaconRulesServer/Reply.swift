package import BeaconRules
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reply lines of SPEC section 5, written straight into bytes.
package enum Reply {
    /// How many records a reply carried, and how many of them were silent.
    package typealias RecordCount = (records: Int, silent: Int)

    /// `{"ok":true,"event":ID,"records":[...]}` from the records as stored: JSON lines, each ending in `\n`.
    @discardableResult
    package static func accepted(event id: String, records: [UInt8], into w: inout JSONWriter) -> RecordCount {
        opening(event: id, into: &w)
        let count = array(of: records, into: &w)
        w.raw("}\n")
        return count
    }

    /// `accepted` for records as the engine wrote them, referenced runs included: each run is
    /// copied once, straight into the reply.
    static func accepted(event id: String, written records: JSONWriter, into w: inout JSONWriter) -> RecordCount {
        opening(event: id, into: &w)
        w.bytes.append(0x5B)  // [
        let start = w.bytes.count
        records.forEachSegment { w.bytes.append(contentsOf: $0) }
        let count = closeArray(from: start, into: &w)
        w.raw("}\n")
        return count
    }

    private static func opening(event id: String, into w: inout JSONWriter) {
        w.raw("{\"ok\":true,\"event\":")
        w.string(id)
        w.raw(",\"records\":")
    }

    /// JSON lines (each ending in `\n`) as a JSON array.
    @discardableResult
    package static func array(of records: [UInt8], into w: inout JSONWriter) -> RecordCount {
        w.bytes.append(0x5B)  // [
        let start = w.bytes.count
        w.bytes.append(contentsOf: records)
        return closeArray(from: start, into: &w)
    }

    /// Turns the JSON lines appended from `start` on into the items of the array opened just
    /// before: each line's `\n` becomes the comma after it, the last one the closing bracket.
    /// Records never hold a raw newline (JSON escapes it), so each `\n` ends one record. Counts
    /// the records on the way (the metrics' records by kind): a record starting
    /// `{"kind":"s` is silent.
    private static func closeArray(from start: Int, into w: inout JSONWriter) -> RecordCount {
        guard w.bytes.count > start else {
            w.bytes.append(0x5D)  // ]
            return (0, 0)
        }
        return w.bytes.withUnsafeMutableBufferPointer { all in
            let base = all.baseAddress!
            var at = start
            var count: RecordCount = (0, 0)
            while at < all.count, let hit = memchr(base + at, 0x0A, all.count - at) {
                let newline = UnsafeMutableRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                count.records += 1
                if newline - at > silentKind && base[at + silentKind] == 0x73 && base[at + 2] == 0x6B { count.silent += 1 }  // s, k
                base[newline] = 0x2C  // ,
                at = newline + 1
            }
            base[all.count - 1] = 0x5D  // ]
            return count
        }
    }

    /// Where a record's kind starts: `{"kind":"` is nine bytes.
    private static let silentKind = 9

    /// `{"ok":true,"outbox":[{"seq":N,"records":[...]},...],"next":M}`: records that fired on the
    /// clock; ask again with `"after":M` for the ones after these.
    static func outbox(_ entries: [(seq: Int64, records: [UInt8])], after: Int64, into w: inout JSONWriter) {
        w.raw("{\"ok\":true,\"outbox\":[")
        var next = after
        for (i, entry) in entries.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"seq\":")
            w.integer(entry.seq)
            w.raw(",\"records\":")
            array(of: entry.records, into: &w)
            w.raw("}")
            next = entry.seq
        }
        w.raw("],\"next\":")
        w.integer(next)
        w.raw("}\n")
    }

    /// `{"ok":false,"line":N,"error":MESSAGE}`.
    package static func rejected(line: Int, message: String, into w: inout JSONWriter) {
        w.raw("{\"ok\":false,\"line\":")
        w.integer(Int64(line))
        w.raw(",\"error\":")
        w.string(message)
        w.raw("}\n")
    }
}
