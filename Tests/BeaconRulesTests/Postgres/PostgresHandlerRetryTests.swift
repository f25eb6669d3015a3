@testable import BeaconRules
@testable import BeaconRulesPostgres
import Logging
import Testing

/// The retry of a transaction on the database (it read what was not prepared: rolled back and run
/// again) runs a click's handler once, and what it committed is what that one run returned.
extension ServePostgresTests {
    @Test func aTransactionRunTwiceOnTheDatabaseRunsAClickHandlerOnce() async throws {
        let cluster = try PostgresCluster.shared()
        let location = try PostgresLocation(url: try cluster.createDatabase("handler_once"))
        let store = try await PostgresStateStore(location: location, logger: Logger(label: "test"))
        defer { store.close() }
        var settings = PresenceSettings()
        settings.flickerControl = false
        let engine = RulesEngine(campaigns: CampaignSet(try Harness.campaigns(ResponseTests.campaign)), locales: Harness.locales, store: store)
        let pipeline = LinePipeline(engine: PresenceEngine(engine: engine, settings: settings), log: store, output: CollectingOutput(), logsPresenceInput: false)
        try pipeline.loadLedger()
        let calls = HandlerRetryTests.Calls()
        pipeline.engine.engine.actionRegistry.register(type: "coupon") { invocation in
            var followUp = FollowUpRecord(invocation)
            followUp.id += ":\(calls.add())"
            return [.followUp(followUp)]
        }

        var attempts = 0
        /// `line` in one transaction, as the drivers run it; `missing`: its first attempt also
        /// reads a device it did not prepare (as the presence clock may), so it runs twice.
        func apply(_ line: InputLine, missing device: String? = nil) async throws {
            var reads = TransactionReads()
            reads.add(line)
            let checkpoint = pipeline.checkpoint()
            attempts = 0
            try await store.transaction(reading: reads, {
                attempts += 1
                pipeline.output = CollectingOutput()
                try pipeline.refreshLedger(naming: reads.ledgerLinesOf)
                pipeline.append(line, line: 1, identified: true)
                pipeline.applyBatch()
                if let device { _ = store.lastFiring(device: device, campaign: CampaignID(canonical: "offer")) }
                try pipeline.settle()
            }, retry: { pipeline.restore(checkpoint) })
        }

        try await apply(.beacon(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en")))
        try await apply(.response(ResponseTests().response(.click, "coupon")), missing: "d2")
        #expect(attempts == 2)
        #expect(calls.value == 1)
        #expect("\(pipeline.output.outcomes)".contains("offer:d1:e1:coupon:1"))
    }
}
