import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A regular file mapped read-only (`LineReader` hands out its lines where they lie), owned by
/// whoever still reads it: `replay --jobs N`'s shards read their lines in place through it (the
/// reader hands them offsets, not copies), and the mapping goes when the last of them lets go.
///
/// The reader drops pages behind it from the process (`madvise`), but only those of blocks the
/// writer has written (`applied(upTo:)`): every shard is done with them then, so that no shard
/// faults a dropped page back in, and memory stays flat in the file's length.
///
/// `@unchecked Sendable`: `bytes` is mapped `PROT_READ` and never written by anyone; it is unmapped
/// only in `deinit`, when no thread holds a reference. The one mutable part, the writer's mark,
/// is behind a `Mutex`.
final class MappedInput: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>
    /// How far the writer has written the blocks read from this file (an offset into it).
    private let written = Mutex(0)

    /// The file open on `fd` mapped whole; nil if it is not a regular file, is empty, or cannot
    /// be mapped (it is then read).
    init?(fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0,
              let map = mmap(nil, Int(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED
        else { return nil }
        _ = madvise(map, Int(info.st_size), MADV_SEQUENTIAL)
        bytes = UnsafeBufferPointer(start: map.assumingMemoryBound(to: UInt8.self), count: Int(info.st_size))
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }

    /// The writer has written every block up to `offset` (the shards are done with its lines).
    func applied(upTo offset: Int) {
        written.withLock { $0 = max($0, offset) }
    }

    /// How far the pages may be dropped.
    var appliedUpTo: Int { written.withLock { $0 } }
}
