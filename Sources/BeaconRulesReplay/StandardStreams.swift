import Foundation
package import BeaconRules
#if canImport(Glibc)
package import Glibc
#endif

/// Writes bytes to a file descriptor, all of them, retrying on EINTR.
package struct OutputSink {
    package let fd: Int32

    /// Writes to `fd` (1: stdout, 2: stderr).
    package init(fd: Int32) {
        self.fd = fd
    }

    /// Returns false when the reader has gone away (EPIPE) or the write failed.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
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

    /// Writes everything `writer` holds, its referenced runs included, with `writev` (up to
    /// 1,024 runs a call): referenced bytes go to the file without being copied here first.
    @discardableResult
    package func write(_ writer: JSONWriter) -> Bool {
        if writer.references.isEmpty { return write(writer.bytes) }
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: Self.vectorLimit) { vectors in
            var count = 0
            var ok = true
            writer.forEachSegment { run in
                guard ok else { return }
                vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: run.baseAddress!), iov_len: run.count)
                count += 1
                if count == Self.vectorLimit {
                    ok = writeAll(UnsafeMutableBufferPointer(rebasing: vectors[..<count]))
                    count = 0
                }
            }
            if ok && count > 0 { ok = writeAll(UnsafeMutableBufferPointer(rebasing: vectors[..<count])) }
            return ok
        }
    }

    package static let vectorLimit = 1024

    /// `writev` until every vector is written, picking up after partial writes.
    package func writeAll(_ v: UnsafeMutableBufferPointer<iovec>) -> Bool {
        var first = 0
        while first < v.count {
            let n = writev(fd, v.baseAddress! + first, Int32(v.count - first))
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            var left = n
            while first < v.count && left >= v[first].iov_len {
                left -= v[first].iov_len
                first += 1
            }
            if left > 0 {
                v[first].iov_base += left
                v[first].iov_len -= left
            }
        }
        return true
    }
}

package enum StandardError {
    package static func write(_ text: String) {
        OutputSink(fd: 2).write(Array(text.utf8))
    }

    package static var isTerminal: Bool { isatty(2) == 1 }
}
