import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes bytes to a file descriptor, all of them, retrying on EINTR.
struct OutputSink {
    let fd: Int32

    /// Returns false when the reader has gone away (EPIPE) or the write failed.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }
}

enum StandardError {
    static func write(_ text: String) {
        OutputSink(fd: 2).write(Array(text.utf8))
    }

    static var isTerminal: Bool { isatty(2) == 1 }
}
