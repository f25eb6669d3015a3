package import NIOCore

/// Splits a connection's bytes into lines at `\n`, with a length limit.
///
/// NIO's `splitLines(maximumBufferSize:)` fails the whole stream on a long line; the protocol
/// instead answers an over-long line with one error and skips it up to its newline, so the
/// connection lives on. Memory stays within `limit` plus one read, whatever the client sends.
package struct LineFramer: Sendable {
    /// What the framer found: a line (without its `\n`), or the start of a line over the limit.
    package enum Frame: Sendable, Equatable {
        case line(ByteBuffer)
        /// A line longer than the limit; its bytes up to the next `\n` are dropped.
        case overlong
    }

    /// The longest line accepted, in bytes, not counting the `\n`.
    package let limit: Int
    /// The start of a line whose newline has not arrived yet.
    private var partial: ByteBuffer?
    /// True while dropping the rest of an over-long line.
    private var skipping = false

    package init(limit: Int = 64 * 1024) {
        self.limit = limit
    }

    /// Frames `chunk`, handing each complete line (or over-long marker) to `emit` in order.
    package mutating func feed(_ chunk: ByteBuffer, _ emit: (Frame) -> Void) {
        var chunk = chunk
        while chunk.readableBytes > 0 {
            let newline = chunk.readableBytesView.firstIndex(of: 0x0A)
            if skipping {
                guard let newline else { return }
                chunk.moveReaderIndex(to: newline + 1)
                skipping = false
                continue
            }
            guard let newline else {
                let pending = (partial?.readableBytes ?? 0) + chunk.readableBytes
                if pending > limit {
                    partial = nil
                    skipping = true
                    emit(.overlong)
                } else if partial == nil {
                    // Copy: a slice would pin the whole receive buffer until the line completes.
                    partial = ByteBuffer(buffer: chunk)
                } else {
                    partial!.writeBuffer(&chunk)
                }
                return
            }
            var line = chunk.readSlice(length: newline - chunk.readerIndex)!
            chunk.moveReaderIndex(forwardBy: 1)
            if var start = partial {
                partial = nil
                if start.readableBytes + line.readableBytes > limit {
                    emit(.overlong)
                } else {
                    start.writeBuffer(&line)
                    emit(.line(start))
                }
            } else if line.readableBytes > limit {
                emit(.overlong)
            } else {
                emit(.line(line))
            }
        }
    }

    /// The end of input: a last line without `\n` still counts as a line.
    package mutating func finish(_ emit: (Frame) -> Void) {
        if let last = partial, last.readableBytes > 0 { emit(.line(last)) }
        partial = nil
        skipping = false
    }
}
