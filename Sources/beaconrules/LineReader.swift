#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor in large chunks and hands out its lines as byte slices of the chunk:
/// no `String` and no copy per line. Memory stays flat whatever the input's length.
struct LineReader {
    let fd: Int32
    private var storage: [UInt8]
    private(set) var bytesRead = 0

    init(fd: Int32, chunkSize: Int = 1 << 20) {
        self.fd = fd
        storage = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Calls `body` with each line (without its `\n`) and its 1-based number; `onChunk` after each read.
    mutating func forEachLine(
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void,
        onChunk: (Int) -> Void = { _ in }
    ) throws {
        var filled = 0
        var lineNumber = 0
        while true {
            if filled == storage.count { storage += [UInt8](repeating: 0, count: storage.count) }
            let n = storage.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: String(cString: strerror(errno)))
            }
            bytesRead += n
            let end = filled + n
            var consumed = 0
            try storage.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                while consumed < end {
                    guard let hit = memchr(base + consumed, 0x0A, end - consumed) else { break }
                    let newline = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                    lineNumber += 1
                    try body(UnsafeBufferPointer(rebasing: buffer[consumed..<newline]), lineNumber)
                    consumed = newline + 1
                }
                if n == 0 && consumed < end {
                    lineNumber += 1
                    try body(UnsafeBufferPointer(rebasing: buffer[consumed..<end]), lineNumber)
                    consumed = end
                }
            }
            if n > 0 { onChunk(bytesRead) }
            if n == 0 { return }
            // Keep the unfinished line at the front for the next read.
            if consumed > 0 {
                let rest = end - consumed
                if rest > 0 {
                    storage.withUnsafeMutableBufferPointer { buffer in
                        let base = buffer.baseAddress!
                        memmove(base, base + consumed, rest)
                    }
                }
                filled = rest
            } else {
                filled = end
            }
        }
    }
}

struct ReadError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
