import BeaconRules

/// The reply lines of SPEC section 5, written straight into bytes.
enum Reply {
    /// `{"ok":true,"event":ID,"records":[...]}` from the records as stored: JSON lines, each ending in `\n`.
    static func accepted(event id: String, records: [UInt8], into w: inout JSONWriter) {
        w.raw("{\"ok\":true,\"event\":")
        w.string(id)
        w.raw(",\"records\":[")
        // Records never hold a raw newline (JSON escapes it), so each `\n` ends one record.
        var first = true
        var start = 0
        for index in records.indices where records[index] == 0x0A {
            if !first { w.bytes.append(0x2C) }
            w.bytes.append(contentsOf: records[start..<index])
            first = false
            start = index + 1
        }
        w.raw("]}\n")
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
