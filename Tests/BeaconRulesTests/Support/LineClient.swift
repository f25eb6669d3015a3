import NIOCore
import NIOPosix

/// One test connection to `serve`, inside NIO's scoped `executeThenClose`.
struct LineSession {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    var replies: NIODecodedAsyncSequence<NIOAsyncChannelInboundStream<ByteBuffer>, NIOSplitUTF8LinesMessageDecoder>.AsyncIterator

    /// Sends the lines, each with its `\n`, in one write.
    func send(_ lines: [String]) async throws {
        try await outbound.write(ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
    }

    /// Sends raw bytes as they are.
    func send(raw: String) async throws {
        try await outbound.write(ByteBuffer(string: raw))
    }

    /// Half-closes: the server sees the end of the requests and still answers them.
    func finishSending() {
        outbound.finish()
    }

    /// The next reply line, or nil when the server has closed the connection.
    mutating func receive() async throws -> String? {
        try await replies.next()
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
            var session = LineSession(
                outbound: outbound,
                replies: inbound.splitUTF8Lines(omittingEmptySubsequences: true, maximumBufferSize: 16 << 20).makeAsyncIterator())
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
}
