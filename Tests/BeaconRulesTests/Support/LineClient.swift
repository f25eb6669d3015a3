import BeaconRulesServer
import NIOCore
import NIOPosix

/// One test connection to `serve`, inside NIO's scoped `executeThenClose`.
struct LineSession {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    /// The server's own framing: only lines that end in `\n` count, so a reply cut off by a crash
    /// is never taken for a whole one.
    var framer = LineFramer(limit: 16 << 20)
    var ready: [String] = []

    /// Sends the lines, each with its `\n`, in one write.
    func send(_ lines: some Sequence<String>) async throws {
        try await outbound.write(ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
    }

    /// The next whole reply line, or nil when the server has closed the connection.
    mutating func receive() async throws -> String? {
        while ready.isEmpty {
            guard let chunk = try await inbound.next() else { return nil }
            framer.feed(chunk) { frame in
                if case .line(let line) = frame { ready.append(String(buffer: line)) }
            }
        }
        return ready.removeFirst()
    }
}

enum LineClient {
    static func withConnection<Result: Sendable>(
        port: Int, _ body: (inout LineSession) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var session = LineSession(outbound: outbound, inbound: inbound.makeAsyncIterator())
            return try await body(&session)
        }
    }

    /// Sends every line pipelined (written while replies are read), half-closes, and returns every
    /// reply until the server closes.
    static func exchange(port: Int, lines: [String]) async throws -> [String] {
        try await exchange(port: port, payload: ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
    }

    /// As `exchange(port:lines:)`, with the request bytes as they are.
    static func exchange(port: Int, payload: ByteBuffer) async throws -> [String] {
        try await withConnection(port: port) { session in
            let outbound = session.outbound
            async let sent: Void = {
                try await outbound.write(payload)
                outbound.finish()
            }()
            var replies: [String] = []
            while let reply = try await session.receive() { replies.append(reply) }
            try await sent
            return replies
        }
    }

    /// Keeps sending the lines (never half-closing) while it reads replies, until the server
    /// closes the connection (a shutdown); `onReply` is told each reply's 1-based number.
    static func streamUntilClosed(port: Int, lines: [String], onReply: @Sendable (Int) -> Void) async throws -> [String] {
        try await withConnection(port: port) { session in
            let outbound = session.outbound
            let payload = ByteBuffer(string: lines.map { $0 + "\n" }.joined())
            let sender = Task { try? await outbound.write(payload) }
            defer { sender.cancel() }
            var replies: [String] = []
            while let reply = try await session.receive() {
                replies.append(reply)
                onReply(replies.count)
            }
            return replies
        }
    }
}
