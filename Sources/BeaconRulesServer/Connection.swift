import BeaconRules
import Logging
import NIOCore
import ServiceLifecycle

/// One client: reads request lines, hands them to the `EngineOwner` in order, and writes exactly
/// one reply line per request line, in order.
///
/// Two tasks share the work so that requests can be pipelined: the reader frames and parses each
/// chunk as it arrives and submits its lines at once (they may share a commit with every other
/// connection's), the writer awaits the replies in submission order and writes them. An
/// `InFlightWindow` between them bounds what a slow reader of replies can make the server hold.
struct Connection: Sendable {
    let number: Int
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let owner: EngineOwner
    let configuration: ServerConfiguration
    let logger: Logger

    /// Serves the connection until the client closes it, or graceful shutdown closes its input;
    /// never throws, so one client cannot take the server down.
    func run() async {
        var logger = logger
        logger[metadataKey: "connection"] = "\(number)"
        let peer = channel.channel.remoteAddress.map { "\($0)" } ?? "unknown"
        logger.info("connection opened", metadata: ["peer": "\(peer)"])
        var lines = 0
        var outcome = "closed by the client"
        do {
            lines = try await withGracefulShutdownHandler {
                try await channel.executeThenClose { inbound, outbound in
                    try await serve(inbound: inbound, outbound: outbound)
                }
            } onGracefulShutdown: { [channel] in
                // Stop reading: lines already read are still answered, then the connection closes.
                channel.channel.close(mode: .input, promise: nil)
            }
        } catch {
            outcome = "closed: \(error)"
        }
        logger.info("connection \(outcome)", metadata: ["lines": "\(lines)"])
    }

    private typealias Pending = (reply: EventLoopFuture<ByteBuffer>, lines: Int)

    /// Returns the number of lines read.
    private func serve(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> Int {
        let (replies, pending) = AsyncStream.makeStream(of: Pending.self)
        let window = InFlightWindow(limit: configuration.linesInFlight)
        let eventLoop = channel.channel.eventLoop
        let limit = configuration.maximumLineLength
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { window.close() }
                for await next in replies {
                    try await outbound.write(try await next.reply.get())
                    window.release(next.lines)
                }
            }
            var framer = LineFramer(limit: limit)
            var number = 0
            /// False once the writer has gone (the client stopped taking replies).
            func submit(_ lines: [RequestLine]) async -> Bool {
                if lines.isEmpty { return true }
                guard await window.acquire(lines.count) else { return false }
                let promise = eventLoop.makePromise(of: ByteBuffer.self)
                owner.submit(lines, promise: promise)
                pending.yield((promise.futureResult, lines.count))
                return true
            }
            do {
                for try await chunk in inbound {
                    var lines: [RequestLine] = []
                    framer.feed(chunk) { frame in
                        number += 1
                        lines.append(.parse(frame, line: number, limit: limit))
                    }
                    if await !submit(lines) { break }
                }
            } catch {
                // A reset or a read error: what was read is still answered, if the client listens.
                logger.debug("read ended", metadata: ["error": "\(error)"])
            }
            var last: [RequestLine] = []
            framer.finish { frame in
                number += 1
                last.append(.parse(frame, line: number, limit: limit))
            }
            _ = await submit(last)
            pending.finish()
            try await group.waitForAll()
            return number
        }
    }
}
