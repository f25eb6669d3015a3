import BeaconRules
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reply lines of SPEC section 5, written straight into bytes.
enum Reply {
    /// `{"ok":true,"event":ID,"records":[...]}` from the records as stored: JSON lines, each ending in `\n`.
    static func accepted(event id: String, records: [UInt8], into w: inout JSONWriter) {
        w.raw("{\"ok\":true,\"event\":")
        w.string(id)
        w.raw(",\"records\":")
        array(of: records, into: &w)
        w.raw("}\n")
    }

    /// JSON lines (each ending in `\n`) as a JSON array. Records never hold a raw newline (JSON
    /// escapes it), so each `\n` ends one record.
    static func array(of records: [UInt8], into w: inout JSONWriter) {
        w.bytes.append(0x5B)  // [
        records.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count, let hit = memchr(base + start, 0x0A, all.count - start) {
                let end = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                if start > 0 { w.bytes.append(0x2C) }  // ,
                w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end + 1
            }
        }
        w.bytes.append(0x5D)  // ]
    }

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
    static func rejected(line: Int, message: String, into w: inout JSONWriter) {
        w.raw("{\"ok\":false,\"line\":")
        w.integer(Int64(line))
        w.raw(",\"error\":")
        w.string(message)
        w.raw("}\n")
    }
}
