import BeaconRules
import BeaconRulesStore
import Testing

/// The answers a state file holds, as the `beaconrules_answers_held` gauge reads them: counted
/// without a scan, and kept right when retention forgets.
@Suite("Retention: the answers held")
struct HeldAnswersTests {
    @Test func forgottenAnswersAreNoLongerCountedAsHeld() throws {
        let store = try SQLiteStateStore.inMemory()
        try store.begin()
        store.setClock(Timestamp(milliseconds: 1_000))
        for id in ["e-1", "e-2", "e-3"] { store.remember(event: id, records: Array("{}\n".utf8)) }
        try store.commit()
        #expect(store.heldAnswers == 3)

        try store.begin()
        store.setClock(Timestamp(milliseconds: 5_000))
        store.remember(event: "e-4", records: Array("{}\n".utf8))
        let forgotten = try store.forgetAnswers(before: Timestamp(milliseconds: 2_000), limit: 10)
        try store.commit()
        #expect(forgotten == 3)
        #expect(store.heldAnswers == 1)
        #expect(store.answer(event: "e-1") == nil)
        #expect(store.answer(event: "e-4") != nil)
    }

    /// Answers go from the oldest on, as in memory: the first one given within the retention
    /// stops the step, even if one given after it is older (the clock went back); that one goes
    /// with those before it. Nothing due: nothing deleted.
    @Test func answersGoFromTheOldestOnUntilOneWithinTheRetention() throws {
        let store = try SQLiteStateStore.inMemory()
        try store.begin()
        for (id, time) in [("e-1", 1_000), ("e-2", 3_000), ("e-3", 1_500), ("e-4", 4_000)] as [(String, Int64)] {
            store.setClock(Timestamp(milliseconds: time))
            store.remember(event: id, records: Array("{}\n".utf8))
        }
        try store.commit()
        try store.begin()
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 500), limit: 10) == 0)
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 2_000), limit: 10) == 1)
        #expect(store.answer(event: "e-1") == nil)
        #expect(store.answer(event: "e-3") != nil, "held until e-2, given before it, goes")
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 3_500), limit: 1) == 1)
        #expect(store.answer(event: "e-2") == nil)
        #expect(try store.forgetAnswers(before: Timestamp(milliseconds: 3_500), limit: 10) == 1)
        try store.commit()
        #expect(store.answer(event: "e-3") == nil)
        #expect(store.answer(event: "e-4") != nil)
        #expect(store.heldAnswers == 1)
    }

    @Test func answersForgottenInARolledBackTransactionAreStillHeld() throws {
        let store = try SQLiteStateStore.inMemory()
        try store.begin()
        store.setClock(Timestamp(milliseconds: 1_000))
        store.remember(event: "e-1", records: Array("{}\n".utf8))
        try store.commit()
        try store.begin()
        _ = try store.forgetAnswers(before: Timestamp(milliseconds: 2_000), limit: 10)
        store.rollback()
        #expect(store.heldAnswers == 1)
        #expect(store.answer(event: "e-1") != nil)
    }
}
