import NIOCore

/// Sending a batch's replies back to the connections' event loops, once the batch is durable.
enum ReplyDelivery {
    /// Hands the replies to their event loops: one task per event loop for the whole batch, not
    /// one per connection, so a busy batch wakes each loop once; on the caller's own event loop
    /// (the engine's, without a state file), at once.
    static func send(_ replies: [(any ReplyTarget, ByteBuffer)]) {
        if replies.isEmpty { return }
        var byLoop: [(loop: any EventLoop, replies: [(any ReplyTarget, ByteBuffer)])] = []
        for reply in replies {
            if let index = byLoop.firstIndex(where: { $0.loop === reply.0.eventLoop }) {
                byLoop[index].replies.append(reply)
            } else {
                byLoop.append((reply.0.eventLoop, [reply]))
            }
        }
        for (loop, replies) in byLoop {
            if loop.inEventLoop {
                deliver(replies)
            } else {
                loop.execute { deliver(replies) }
            }
        }
    }

    /// On their event loop: each connection flushed after its last reply of the batch.
    private static func deliver(_ replies: [(any ReplyTarget, ByteBuffer)]) {
        for (index, (target, reply)) in replies.enumerated() {
            let last = !replies[(index + 1)...].contains { $0.0.id == target.id }
            target.deliver(reply, flush: last)
        }
    }
}
