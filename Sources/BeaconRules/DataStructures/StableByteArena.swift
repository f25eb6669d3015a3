/// Append-only byte storage whose bytes never move: what it hands out stays valid as long as the
/// arena lives, so a `JSONWriter` that collects references (see `JSONWriter.appendStable`) can
/// point into it instead of copying.
///
/// Bytes live in chunks of 4 MiB (a larger run gets a chunk of its own); nothing is freed before
/// the arena is. Copies of the owning engine share one arena (append-only, one owner thread).
final class StableByteArena: @unchecked Sendable {
    private static let chunkSize = 1 << 22
    private var chunks: [UnsafeMutableRawPointer] = []
    private var cursor: UnsafeMutableRawPointer?
    private var room = 0

    /// Copies `bytes` in and returns where they now are for good.
    func store(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let count = bytes.count
        if count > room {
            let size = max(Self.chunkSize, count)
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            chunks.append(chunk)
            cursor = chunk
            room = size
        }
        let start = cursor!
        if count > 0 { start.copyMemory(from: bytes.baseAddress!, byteCount: count) }
        cursor = start + count
        room -= count
        return UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }
}
