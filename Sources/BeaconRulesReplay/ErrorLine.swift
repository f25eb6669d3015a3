import BeaconRules

/// `{"kind":"error","source":...,"line":N,"message":...}` lines for stderr.
package enum ErrorLine {
    /// One line, newline included.
    package static func json(kind: String, source: String, line: Int, message: String) -> String {
        var w = JSONWriter(capacity: 128)
        w.raw("{\"kind\":"); w.string(kind)
        w.raw(",\"source\":"); w.string(source)
        w.raw(",\"line\":"); w.integer(Int64(line))
        w.raw(",\"message\":"); w.string(message)
        w.raw("}\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
