@testable import BeaconRules
import Synchronization
import Testing

/// A transaction that runs twice (`LinePipeline.checkpoint()`, an attempt, `restore(_:)`, the
/// attempt again: the PostgreSQL store's retry) runs a click's handler once: the second attempt
/// takes what the first one's handler returned. A handler may act beyond the pipeline (a host's
/// own), so running it for an attempt that is thrown away would act twice for one click.
struct HandlerRetryTests {
    /// How many times a handler ran.
    final class Calls: Sendable {
        private let count = Atomic(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add() -> Int { count.add(1, ordering: .relaxed).newValue }
    }

    static func pipeline(counting calls: Calls) throws -> LinePipeline<InMemorySuppressionStore, DictionaryLog, CollectingOutput> {
        let pipeline = LinePipelineTests.pipeline(log: DictionaryLog(), campaigns: CampaignSet(try Harness.campaigns(ResponseTests.campaign)))
        pipeline.engine.engine.actionRegistry.register(type: "coupon") { invocation in
            // A different follow-up on each call: a second call would show in the records.
            var followUp = FollowUpRecord(invocation)
            followUp.id += ":\(calls.add())"
            return [.followUp(followUp)]
        }
        pipeline.append(.beacon(Harness.event(beacon: ResponseTests.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en")), line: 1, identified: true)
        pipeline.applyBatch()
        return pipeline
    }

    static func click(_ pipeline: LinePipeline<InMemorySuppressionStore, DictionaryLog, CollectingOutput>, _ actionId: String) -> [CollectingOutput.Outcome] {
        pipeline.output = CollectingOutput()
        pipeline.append(.response(ResponseTests().response(.click, actionId)), line: 2, identified: false)
        pipeline.applyBatch()
        return pipeline.output.outcomes
    }

    @Test func anAttemptRunAgainTakesTheHandlersOutputsInsteadOfRunningItAgain() throws {
        let calls = Calls()
        let pipeline = try Self.pipeline(counting: calls)
        let checkpoint = pipeline.checkpoint()
        let first = Self.click(pipeline, "coupon")
        #expect(calls.value == 1)
        pipeline.restore(checkpoint)
        let again = Self.click(pipeline, "coupon")
        #expect(calls.value == 1)
        #expect(again == first)
        #expect("\(first)".contains("offer:d1:e1:coupon:1"))
    }

    /// Each transaction starts with none kept: what one returned is never taken by the next.
    @Test func eachTransactionStartsWithNoneKept() throws {
        let pipeline = try Self.pipeline(counting: Calls())
        _ = pipeline.checkpoint()
        _ = Self.click(pipeline, "coupon")
        #expect(pipeline.engine.engine.handlerOutputs?.count == 1)
        _ = pipeline.checkpoint()
        #expect(pipeline.engine.engine.handlerOutputs?.isEmpty == true)
    }

    /// Without a transaction that may run twice (every store but the database), nothing is kept.
    @Test func withoutACheckpointNothingIsKept() throws {
        let pipeline = try Self.pipeline(counting: Calls())
        _ = Self.click(pipeline, "coupon")
        #expect(pipeline.engine.engine.handlerOutputs == nil)
    }
}
