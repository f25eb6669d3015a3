#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor in large chunks and hands out its lines one at a time as byte slices of
/// the chunk: no `String` and no copy per line. Memory stays flat whatever the input's length.
///
/// A pull reader (`nextLine`), so that the caller's loop is a plain loop: state the loop changes
/// is then checked for exclusive access when compiled, not at run time on every access, as it is
/// when captured by a closure handed to a reader.
///
/// A regular file is mapped instead (`mmap`) and its lines handed out where they lie in the page
/// cache: the kernel then copies nothing (reading copied every byte once more, about a twentieth
/// of a replay). The file's length is taken when it is opened; a file cut shorter while it is
/// being replayed ends the process (SIGBUS), as with any mapped file. The mapping (`mapping`) may
/// outlive the reader: `replay --jobs N`'s shards read their lines in it.
package struct LineReader: ~Copyable {
    package let fd: Int32
    private var storage: UnsafeMutableBufferPointer<UInt8>
    /// The file is mapped: `storage` is the mapping, read in full (`atEnd`).
    private let mapped: Bool
    /// The mapping, when the file is mapped.
    let mapping: MappedInput?
    /// Pages are dropped only up to where the mapping's writer has applied the lines
    /// (`MappedInput.applied(upTo:)`), not up to the next line: others read lines behind it.
    var releasesOnlyApplied = false
    /// Where the next line started when pages were last dropped.
    private var releaseChecked = 0
    /// Where the next line starts (of a mapped file: its offset in `mapping`).
    var position: Int { start }
    /// Where the next line starts, and how far the storage holds read bytes.
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The 1-based number of the line last returned.
    package private(set) var lineNumber = 0
    /// The line last returned was longer than `longestLine` (and is handed out empty).
    package private(set) var lineWasTooLong = false
    /// Reading through a line longer than `longestLine` (a pipe: its bytes are dropped as read).
    private var skipping = false
    private var readCount = 0
    /// Bytes read so far (of a mapped file: lines handed out, in steps of 256 KiB, and all of it
    /// once the last line is).
    package var bytesRead: Int {
        guard mapped else { return readCount }
        return start == end ? end : start & ~(1 << 18 - 1)
    }

    /// 256 KiB: large enough that reads are few, small enough that the chunk the kernel copies
    /// into is still in the core's cache when its lines are parsed (1 MiB measured slower).
    package init(fd: Int32, chunkSize: Int = 1 << 18) {
        self.fd = fd
        if let mapping = MappedInput(fd: fd) {
            self.mapping = mapping
            storage = UnsafeMutableBufferPointer(mutating: mapping.bytes)
            end = storage.count
            // From where the descriptor stands, as reading would (stdin redirected from a file
            // that something read part of first).
            start = min(max(0, Int(lseek(fd, 0, SEEK_CUR))), end)
            atEnd = true
            mapped = true
        } else {
            mapping = nil
            storage = .allocate(capacity: chunkSize)
            mapped = false
        }
    }

    deinit {
        if !mapped { storage.deallocate() }
    }

    /// The longest line handed out, in bytes (without its `\n`): 16 MiB, thousands of times any
    /// real event, and the records of such a line still fit in memory (each repeats the event's
    /// id and device). A longer one is not kept: it is skipped up to its newline, read through
    /// without being held, and handed out empty with `lineWasTooLong` set, so that one absurd
    /// line neither exhausts memory nor costs the rest.
    package static var longestLine: Int { 1 << 24 }

    /// The next line (without its `\n`), nil after the last; its bytes stay valid until the next
    /// call. A line longer than `longestLine` comes back empty, with `lineWasTooLong` set.
    package mutating func nextLine() throws(ReadError) -> UnsafeBufferPointer<UInt8>? {
        lineWasTooLong = false
        while true {
            let base = storage.baseAddress!
            if mapped && start - releaseChecked >= Self.releaseStep { release() }
            if start < end, let hit = memchr(base + start, 0x0A, end - start) {
                let newline = hit.assumingMemoryBound(to: UInt8.self) - base
                defer { start = newline + 1 }
                lineNumber += 1
                return line(base + start, count: newline - start)
            }
            if atEnd {
                guard start < end || skipping else { return nil }
                // The last line, without a newline.
                defer { start = end }
                lineNumber += 1
                return line(base + start, count: end - start)
            }
            if end - start > Self.longestLine {
                // Too long already: what is held of it is dropped, and so is the rest as read.
                skipping = true
                start = end
            }
            try fill()
        }
    }

    /// The line at `start` (`count` bytes, the rest of it when skipping), or an empty one when it
    /// is too long.
    @inline(__always)
    private mutating func line(_ start: UnsafeMutablePointer<UInt8>, count: Int) -> UnsafeBufferPointer<UInt8> {
        if skipping || count > Self.longestLine {
            skipping = false
            lineWasTooLong = true
            return UnsafeBufferPointer(start: start, count: 0)
        }
        return UnsafeBufferPointer(start: start, count: count)
    }

    /// Of a mapped file, lines before `released` are dropped from the process (the page cache
    /// keeps them), a step at a time, so that memory stays flat however long the file.
    private var released = 0
    private static var releaseStep: Int { 1 << 22 }

    /// Drops the mapped pages wholly before the next line (the caller holds no earlier line).
    private mutating func release() {
        releaseChecked = start
        let upTo = (releasesOnlyApplied ? min(start, mapping?.appliedUpTo ?? 0) : start) & ~(Int(getpagesize()) - 1)
        guard upTo > released else { return }
        _ = madvise(storage.baseAddress! + released, upTo - released, MADV_DONTNEED)
        released = upTo
    }

    /// Keeps the unfinished line at the front, makes room (twice the storage for a line longer
    /// than it), and reads more.
    private mutating func fill() throws(ReadError) {
        if start > 0 {
            let rest = end - start
            if rest > 0 { memmove(storage.baseAddress!, storage.baseAddress! + start, rest) }
            start = 0
            end = rest
        }
        if end == storage.count {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: storage.count * 2)
            _ = larger.initialize(fromContentsOf: UnsafeMutableBufferPointer(rebasing: storage[..<end]))
            storage.deallocate()
            storage = larger
        }
        while true {
            let n = Glibc.read(fd, storage.baseAddress! + end, storage.count - end)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: String(cString: strerror(errno)))
            }
            if n == 0 { atEnd = true }
            readCount += n
            end += n
            return
        }
    }
}

package struct ReadError: Error, CustomStringConvertible {
    package var reason: String

    /// A failed read, and why.
    package init(reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
