import BeaconRules
@testable import BeaconRulesServer
import CampaignFiles
import Logging
import NIOCore
import NIOPosix
import Testing

/// Without a state file the engine runs on one event loop (or, `--engine-thread`, on a thread of
/// its own) and connections on every loop submit to it: in-process, with more loops than this
/// machine may have cores.
@Suite("EngineOwner, connections on several event loops")
struct EngineOwnerLoopsTests {
    private static let campaigns = CampaignSet(CampaignFileReader().load(paths: [Paths.campaigns]).campaigns)

    /// Each connection's lines, its own devices interleaved, cut into reads of `perRead` lines.
    private static func connections(_ count: Int, perRead: Int, prefix: String) -> [[[String]]] {
        (0..<count).map { c in
            let lines = MuseumTrace.interleave(MuseumTrace.devices(3, events: 40, prefix: "\(prefix)\(c)", seed: UInt64(7 + c)))
            return stride(from: 0, to: lines.count, by: perRead).map { Array(lines[$0..<min($0 + perRead, lines.count)]) }
        }
    }

    /// Every connection submits its reads in order from its own event loop, all at once; each
    /// connection's replies, in the order they came.
    private static func submitFromLoops(_ owner: EngineOwner, _ connections: [[[String]]], loops: [any EventLoop]) async throws -> [[String]] {
        var futures: [[EventLoopFuture<ByteBuffer>]] = []
        for (index, reads) in connections.enumerated() {
            let loop = loops[index % loops.count]
            let promises = reads.map { _ in loop.makePromise(of: ByteBuffer.self) }
            futures.append(promises.map(\.futureResult))
            loop.execute {
                var number = 0
                for (read, promise) in zip(reads, promises) {
                    let requests = read.map { line in
                        number += 1
                        return RequestLine.parse(.line(ByteBuffer(string: line)), line: number, limit: 1 << 16)
                    }
                    owner.submit(requests, promise: promise)
                }
            }
        }
        var replies: [[String]] = []
        for reads in futures {
            var lines: [String] = []
            for read in reads { lines += String(buffer: try await read.get()).split(separator: "\n").map(String.init) }
            replies.append(lines)
        }
        return replies
    }

    @Test(arguments: [false, true])
    func repliesPerConnectionAreThoseOfOneConnectionAtATime(onLoop: Bool) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let loops = Array(group.makeIterator())
        let connections = Self.connections(9, perRead: 7, prefix: "ol")

        let alone = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, on: loops[0], logger: Logger(label: "test"))
        alone.start()
        var expected: [[String]] = []
        for reads in connections {
            expected += try await Self.submitFromLoops(alone, [[reads.flatMap { $0 }]], loops: [loops[1]])
        }
        await alone.stop()

        let owner = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, on: onLoop ? loops[0] : nil, logger: Logger(label: "test"))
        owner.start()
        let replies = try await Self.submitFromLoops(owner, connections, loops: loops)
        await owner.stop()
        try await group.shutdownGracefully()

        #expect(replies.count == connections.count)
        #expect(replies == expected)
        #expect(expected.joined().contains { $0.contains("\"kind\":\"notification\"") })
    }

    @Test(arguments: [false, true])
    func stopAnswersEveryLineSubmittedFromAnyLoop(onLoop: Bool) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let loops = Array(group.makeIterator())
        let connections = Self.connections(6, perRead: 5, prefix: "stop")
        let owner = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, on: onLoop ? loops[0] : nil, logger: Logger(label: "test"))
        owner.start()
        async let submitted = Self.submitFromLoops(owner, connections, loops: loops)
        await owner.stop()
        let replies = try await submitted
        try await group.shutdownGracefully()

        // Each line answered once, in order: applied before the stop, or refused after it.
        for (reads, answered) in zip(connections, replies) {
            #expect(answered.count == reads.joined().count)
            let refused = answered.firstIndex { $0.contains("the server is stopping") } ?? answered.count
            #expect(answered[..<refused].allSatisfy { $0.hasPrefix("{\"ok\":true") })
            #expect(answered[refused...].allSatisfy { $0.contains("the server is stopping, resend this line") })
        }
    }
}

/// The queue between the connections' loops and the engine's loop.
@Suite("EngineInbox")
struct EngineInboxTests {
    @Test func onlyTheFirstPostAfterADrainWakesAndJobsComeOutInOrder() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promises = (0..<4).map { _ in loop.makePromise(of: ByteBuffer.self) }
        func job(_ n: Int) -> EngineOwner.Job {
            .lines(Array(repeating: .rejected(line: n, message: ""), count: n + 1), PromiseReplyTarget(promise: promises[n]))
        }
        func sizes(_ jobs: [EngineOwner.Job]) -> [Int] {
            jobs.map { if case .lines(let lines, _) = $0 { lines.count } else { -1 } }
        }
        let inbox = EngineInbox()
        #expect(inbox.post(job(0)) == .wake)
        #expect(inbox.post(job(1)) == .queued)
        // The engine's own connection takes the queue first; the scheduled drain stays due.
        #expect(sizes(try #require(inbox.takeQueued())) == [1, 2])
        #expect(inbox.post(job(2)) == .queued)
        #expect(sizes(inbox.takeAll()) == [3])
        #expect(inbox.takeAll().isEmpty)
        #expect(inbox.post(job(3)) == .wake)
        inbox.close()
        #expect(inbox.post(job(0)) == .refused)
        #expect(inbox.takeQueued() == nil)
        // What was queued before the close is still there for the last drain.
        #expect(sizes(inbox.takeAll()) == [4])
        for promise in promises { promise.succeed(ByteBuffer()) }
    }
}
