import NIOCore

/// Where the replies to one submission go, on `eventLoop`.
protocol ReplyTarget: Sendable {
    var eventLoop: any EventLoop { get }
    /// The same for every submission of one connection.
    var id: ObjectIdentifier { get }
    /// Called on `eventLoop` with the replies (one line per submitted line), once durable;
    /// `flush` on the last of a batch's replies to the same connection.
    func deliver(_ reply: ByteBuffer, flush: Bool)
}

/// A promise as a reply target (tests, and callers outside a channel).
struct PromiseReplyTarget: ReplyTarget {
    let promise: EventLoopPromise<ByteBuffer>
    var eventLoop: any EventLoop { promise.futureResult.eventLoop }
    var id: ObjectIdentifier { ObjectIdentifier(promise.futureResult) }
    func deliver(_ reply: ByteBuffer, flush: Bool) { promise.succeed(reply) }
}
