#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on stderr, shown only when stderr is a terminal.
package struct ProgressBar {
    package let enabled: Bool
    package let totalBytes: Int?
    private var lastDraw: Double = 0
    package private(set) var visible = false

    package init(totalBytes: Int?) {
        enabled = StandardError.isTerminal
        self.totalBytes = totalBytes
    }

    package mutating func update(bytes: Int, lines: Int) {
        guard enabled else { return }
        let now = Self.monotonicSeconds()
        guard now - lastDraw >= 0.1 else { return }
        lastDraw = now
        var text = "\r"
        if let total = totalBytes, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            text += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            text += "\(Int(fraction * 100))% "
        }
        text += "\(lines) lines"
        StandardError.write(text)
        visible = true
    }

    /// Clears the bar so that another line can be written to stderr.
    package mutating func clear() {
        guard visible else { return }
        StandardError.write("\r\u{1B}[K")
        visible = false
    }

    package static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
