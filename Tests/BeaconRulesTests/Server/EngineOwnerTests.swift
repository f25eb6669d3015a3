import BeaconRules
@testable import BeaconRulesServer
@testable import BeaconRulesStore
import CampaignFiles
import Logging
import NIOCore
import NIOPosix
import Testing

/// The state owner in-process, where the store can be made to fail.
@Suite("EngineOwner")
struct EngineOwnerTests {
    @Test func whenTheStateCannotBeSavedEveryLineIsAnsweredWithAnErrorAndNothingIsKept() async throws {
        let path = Paths.temporaryDirectory() + "/state.db"
        let store = try SQLiteStateStore(path: path)
        // A few pages: the answers of 2,000 events (about 2 MB) cannot fit, as on a full disk.
        try store.limitGrowth(toPages: 4)
        let campaigns = CampaignSet(CampaignFileReader().load(paths: [Paths.campaigns]).campaigns)
        let owner = EngineOwner(campaigns: campaigns, locales: Harness.locales, store: store, logger: Logger(label: "test"))
        owner.start()
        let lines = MuseumTrace.devices(10, events: 200, prefix: "full").flatMap { $0 }.enumerated().map { index, line in
            RequestLine.parse(.line(ByteBuffer(string: line)), line: index + 1, limit: 1 << 16)
        }
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: ByteBuffer.self)
        owner.submit(lines, promise: promise)
        let replies = String(buffer: try await promise.futureResult.get()).split(separator: "\n")
        // A reload queued behind a failed transaction still completes.
        await owner.reload(campaigns: campaigns, locales: Harness.locales)
        await owner.stop()

        #expect(replies.count == lines.count)
        #expect(replies.allSatisfy { $0.contains("\"ok\":false") && $0.contains("state not saved, resend this line") })
        #expect(replies.first?.hasPrefix("{\"ok\":false,\"line\":1,") == true)
        let reopened = try SQLiteStateStore(path: path)
        defer { reopened.close() }
        #expect(try reopened.answers().isEmpty)
        #expect(try reopened.firings().isEmpty)
    }
}

/// Without `--state`, the answer log keeps record tails as references into the engine's cache of
/// tails (and keeps that cache alive): a resent event must still get its first reply, byte for
/// byte, after a reload has replaced the engine that wrote it.
@Suite("EngineOwner, answers kept by reference")
struct EngineOwnerReferencedAnswersTests {
    private static let campaigns = CampaignSet(CampaignFileReader().load(paths: [Paths.campaigns]).campaigns)

    private static func exchange(_ owner: EngineOwner, _ lines: [String], on loop: any EventLoop) async throws -> [Substring] {
        let requests = lines.enumerated().map { index, line in
            RequestLine.parse(.line(ByteBuffer(string: line)), line: index + 1, limit: 1 << 16)
        }
        let promise = loop.makePromise(of: ByteBuffer.self)
        owner.submit(requests, promise: promise)
        return String(buffer: try await promise.futureResult.get()).split(separator: "\n")
    }

    @Test func answersGivenBeforeAReloadComeBackTheSameAfterIt() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let owner = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, on: loop, logger: Logger(label: "test"))
        owner.start()
        let lines = MuseumTrace.devices(4, events: 60, prefix: "kept").flatMap { $0 }
        let first = try await Self.exchange(owner, lines, on: loop)
        // No campaigns at all now: the engine that rendered the tails, and its copy of the
        // cache, are gone; whatever the log refers to must still be there.
        await owner.reload(campaigns: CampaignSet([]), locales: Harness.locales)
        var churn: [[UInt8]] = []
        for n in 0..<64 { churn.append([UInt8](repeating: UInt8(n), count: 1 << 20)) }
        let again = try await Self.exchange(owner, lines, on: loop)
        // A new event is matched against no campaigns.
        let fresh = try await Self.exchange(owner, [#"{"id":"kept-new","device":"d","type":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","time":"2026-06-01T10:00:00Z"}"#], on: loop)
        await owner.stop()

        #expect(churn.count == 64)
        #expect(first.count == lines.count)
        // The trace fires notifications and silent records (tails of 90 bytes and more).
        #expect(first.filter { $0.contains("\"kind\":\"notification\"") }.count > 10)
        #expect(first.filter { $0.contains("\"kind\":\"silent\"") }.count > 10)
        #expect(again == first)
        #expect(fresh == [#"{"ok":true,"event":"kept-new","records":[]}"#])
    }

    /// The same lines answered by a server with a state file (which keeps the records' bytes)
    /// and by one without (which keeps references): the same replies.
    @Test func repliesAreTheSameWithAndWithoutAStateFile() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let lines = MuseumTrace.devices(3, events: 40, prefix: "both").flatMap { $0 }
        let memory = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, on: loop, logger: Logger(label: "test"))
        memory.start()
        let inMemory = try await Self.exchange(memory, lines, on: loop)
        let inMemoryAgain = try await Self.exchange(memory, lines, on: loop)
        await memory.stop()
        let store = try SQLiteStateStore(path: Paths.temporaryDirectory() + "/state.db")
        let file = EngineOwner(campaigns: Self.campaigns, locales: Harness.locales, store: store, logger: Logger(label: "test"))
        file.start()
        let withFile = try await Self.exchange(file, lines, on: loop)
        await file.stop()

        #expect(inMemory.count == lines.count)
        #expect(inMemory == withFile)
        #expect(inMemoryAgain == withFile)
    }
}
