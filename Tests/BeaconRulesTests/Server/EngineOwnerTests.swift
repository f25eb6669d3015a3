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
