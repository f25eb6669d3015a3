import BeaconRules
import Logging
import NIOCore
import ServiceLifecycle

/// One client: reads request lines, hands them to the `EngineOwner` in order, and writes exactly
/// one reply line per request line, in order.
///
/// Two tasks share the work so that requests can be pipelined: the reader frames and parses each
/// chunk as it arrives and submits its lines at once (they may share a commit with every other
/// connection's), the writer awaits the replies in submission order and writes them. A
/// `ReplyQueue` between them bounds what a slow reader of replies can make the server hold.
///
/// Graceful shutdown closes the queue: lines already read are answered, later input is read and
/// dropped, the server half-closes its side after the last reply, and closes once the client has
/// closed too (or after `lingerAfterShutdown`). Closing while the client's bytes sit unread would
/// make the kernel reset the connection and drop replies not yet delivered.
struct Connection: Sendable {
    let number: Int
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let owner: EngineOwner
    let configuration: ServerConfiguration
    let logger: Logger

    /// How long a connection waits for the client to close after its last reply at shutdown.
    static let lingerAfterShutdown = TimeAmount.seconds(2)

    /// Serves the connection until the client closes it or shutdown ends it; never throws, so one
    /// client cannot take the server down.
    func run() async {
        var logger = logger
        logger[metadataKey: "connection"] = "\(number)"
        let peer = channel.channel.remoteAddress.map { "\($0)" } ?? "unknown"
        logger.info("connection opened", metadata: ["peer": "\(peer)"])
        let queue = ReplyQueue(limit: configuration.linesInFlight)
        var lines = 0
        var outcome = "closed by the client"
        do {
            lines = try await withGracefulShutdownHandler {
                try await channel.executeThenClose { inbound, outbound in
                    try await serve(inbound: inbound, outbound: outbound, queue: queue, logger: logger)
                }
            } onGracefulShutdown: {
                queue.close()
            }
        } catch {
            outcome = "closed: \(error)"
        }
        logger.info("connection \(outcome)", metadata: ["lines": "\(lines)"])
    }

    /// Returns the number of lines read.
    private func serve(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        queue: ReplyQueue, logger: Logger
    ) async throws -> Int {
        let channel = channel.channel
        let limit = configuration.maximumLineLength
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for await next in queue.replies {
                        try await outbound.write(try await next.reply.get())
                        queue.release(next.lines)
                    }
                } catch {
                    // The client is gone: stop the reader too.
                    queue.close()
                    throw error
                }
                // Every line taken is answered. If the client has not ended its requests (shutdown),
                // tell it with a half-close, and give it a moment to close its side.
                outbound.finish()
                channel.eventLoop.scheduleTask(in: Self.lingerAfterShutdown) { channel.close(promise: nil) }
            }
            var framer = LineFramer(limit: limit)
            var number = 0
            func submit(_ lines: [RequestLine]) async {
                if lines.isEmpty { return }
                _ = await queue.enqueue(lines.count) {
                    let promise = channel.eventLoop.makePromise(of: ByteBuffer.self)
                    owner.submit(lines, promise: promise)
                    return promise.futureResult
                }
            }
            do {
                for try await chunk in inbound {
                    // After shutdown, input is read only to be dropped (see the type's comment).
                    if queue.isClosed { continue }
                    var lines: [RequestLine] = []
                    framer.feed(chunk) { frame in
                        number += 1
                        lines.append(.parse(frame, line: number, limit: limit))
                    }
                    await submit(lines)
                }
                var last: [RequestLine] = []
                framer.finish { frame in
                    number += 1
                    last.append(.parse(frame, line: number, limit: limit))
                }
                await submit(last)
            } catch {
                // A reset or a read error: what was read is still answered, if the client listens.
                logger.debug("read ended", metadata: ["error": "\(error)"])
            }
            queue.close()
            try await group.waitForAll()
            return number
        }
    }
}
