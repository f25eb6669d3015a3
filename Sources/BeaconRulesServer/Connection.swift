import BeaconRules
import Logging
import NIOCore

/// One client, on its channel's event loop: frames and parses request lines as they arrive,
/// submits each read's lines to the `EngineOwner` in order, and writes exactly one reply line per
/// request line, in order, as the owner hands the replies back.
///
/// Connections are spread over every event loop of the server (one per core); each one's framing,
/// parsing and reply writing happen on its own loop, and only the parsed lines go to the owner: a
/// read's lines are one submission (one hop, not one per line), and the replies come back as one
/// task per event loop for the owner's whole batch.
///
/// Backpressure: at most `linesInFlight` lines may be read but not yet answered, and replies
/// written but not yet taken by the socket stay under the channel's write-buffer high-water mark
/// (`BeaconServer`'s `repliesUnsent`). Past either, the handler holds back NIO's `read()`, so a
/// client that does not read its replies stops being read, its TCP window fills, and it alone
/// waits, at bounded memory.
///
/// Graceful shutdown (`shutdown()`): lines already read are answered, later input is read and
/// dropped, the server half-closes its side after the last reply, and closes once the client has
/// closed too (or after `lingerAfterShutdown`). Closing while the client's bytes sit unread would
/// make the kernel reset the connection and drop replies not yet delivered.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a connection waits for the client to close after its last reply at shutdown.
    static let lingerAfterShutdown = TimeAmount.seconds(2)

    private let owner: EngineOwner
    private let registry: ConnectionRegistry
    private let maximumLineLength: Int
    private let linesInFlight: Int
    private var logger: Logger
    private var framer: LineFramer
    private var context: ChannelHandlerContext?
    private var number = 0
    /// `serve --apps`: the apps a line may name (each line's app is read with it); nil for one app.
    private let apps: LineApps?
    /// Lines read since the last submission (with apps, in `pendingApps`).
    private var pending: [RequestLine] = []
    private var pendingApps: [AppRequestLine] = []
    /// Lines submitted and not yet answered.
    private var inFlight = 0
    /// NIO asked to read while too many lines were in flight: read once replies make room.
    private var readHeld = false
    /// The client has half-closed: no more lines will come.
    private var inputClosed = false
    /// Graceful shutdown: answer what was read, drop the rest.
    private var stopping = false
    /// The last reply is written (or being written) and the output is closing.
    private var finished = false
    private var lastWrite: EventLoopFuture<Void>?
    private var connection = 0

    init(owner: EngineOwner, registry: ConnectionRegistry, configuration: ServerConfiguration, apps: LineApps? = nil, logger: Logger) {
        self.owner = owner
        self.apps = apps
        self.registry = registry
        self.maximumLineLength = configuration.maximumLineLength
        self.linesInFlight = configuration.linesInFlight
        self.logger = logger
        self.framer = LineFramer(limit: configuration.maximumLineLength)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        let (number, stopping) = registry.add(NIOLoopBound(self, eventLoop: context.eventLoop))
        connection = number
        logger[metadataKey: "connection"] = "\(number)"
        let peer = context.channel.remoteAddress.map { "\($0)" } ?? "unknown"
        logger.info("connection opened", metadata: ["peer": "\(peer)"])
        if stopping { shutdown() }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.remove(connection)
        let outcome = finished || inputClosed ? "closed by the client" : "closed"
        logger.info("connection \(outcome)", metadata: ["lines": "\(number)"])
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After shutdown, input is read only to be dropped (see the type's comment).
        if stopping || inputClosed { return }
        let limit = maximumLineLength
        framer.feed(unwrapInboundIn(data)) { frame in
            number += 1
            take(frame, limit: limit)
        }
    }

    /// One framed line into the submission being gathered.
    private func take(_ frame: LineFramer.Frame, limit: Int) {
        if let apps {
            pendingApps.append(.parse(frame, line: number, limit: limit, apps: apps))
        } else {
            pending.append(.parse(frame, line: number, limit: limit))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        submitPending()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case ChannelEvent.inputClosed = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if !stopping && !inputClosed {
            let limit = maximumLineLength
            framer.finish { frame in
                number += 1
                take(frame, limit: limit)
            }
            submitPending()
        }
        inputClosed = true
        if finished {
            // Shutdown already half-closed our side; the client has closed its own.
            context.close(promise: nil)
        } else {
            finishIfAnswered()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a read error: the client is gone.
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    /// NIO asks for more input: held back while too many lines wait for their replies, or too
    /// many reply bytes wait for the client to read them.
    func read(context: ChannelHandlerContext) {
        if !stopping && (inFlight >= linesInFlight || !context.channel.isWritable) {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// The client has read enough of its replies: read its lines again if they were held back.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        readIfRoom(context)
        context.fireChannelWritabilityChanged()
    }

    private func readIfRoom(_ context: ChannelHandlerContext) {
        if readHeld && inFlight < linesInFlight && context.channel.isWritable {
            readHeld = false
            context.read()
        }
    }

    /// Graceful shutdown: answer what was read, drop what comes after, then close.
    func shutdown() {
        if stopping { return }
        stopping = true
        pending = []
        pendingApps = []
        if readHeld, let context {
            readHeld = false
            context.read()
        }
        finishIfAnswered()
    }

    /// The replies to `lines` lines, from the owner (on this event loop).
    func deliver(_ reply: ByteBuffer, lines: Int, flush: Bool) {
        inFlight -= lines
        guard let context, !finished else { return }
        lastWrite = context.write(wrapOutboundOut(reply))
        if flush { context.flush() }
        readIfRoom(context)
        finishIfAnswered()
    }

    private func submitPending() {
        if !pendingApps.isEmpty {
            let lines = pendingApps
            pendingApps = []
            inFlight += lines.count
            owner.submit(lines, to: ConnectionReplies(handler: NIOLoopBound(self, eventLoop: context!.eventLoop), id: ObjectIdentifier(self), lines: lines.count))
            return
        }
        if pending.isEmpty { return }
        let lines = pending
        pending = []
        pending.reserveCapacity(lines.count)
        inFlight += lines.count
        owner.submit(lines, to: ConnectionReplies(handler: NIOLoopBound(self, eventLoop: context!.eventLoop), id: ObjectIdentifier(self), lines: lines.count))
    }

    /// Once every line read is answered and no more will be: the client half-closed, so close
    /// after the last reply; or shutdown, so half-close, and close when the client does (or after
    /// the linger time).
    private func finishIfAnswered() {
        guard (inputClosed || stopping), inFlight == 0, pending.isEmpty, pendingApps.isEmpty, !finished, let context else { return }
        finished = true
        context.flush()
        let done = lastWrite ?? context.eventLoop.makeSucceededVoidFuture()
        let channel = context.channel
        if inputClosed {
            done.whenComplete { _ in channel.close(promise: nil) }
        } else {
            done.whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: Self.lingerAfterShutdown) { channel.close(promise: nil) }
            }
        }
    }
}

/// The replies to one submission of a connection.
struct ConnectionReplies: ReplyTarget {
    let handler: NIOLoopBound<ConnectionHandler>
    let id: ObjectIdentifier
    let lines: Int

    var eventLoop: any EventLoop { handler.eventLoop }

    func deliver(_ reply: ByteBuffer, flush: Bool) {
        handler.value.deliver(reply, lines: lines, flush: flush)
    }
}
