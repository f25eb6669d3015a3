import BeaconRules
import BeaconRulesStore
import Foundation
import Testing

@Suite("SQLite state store")
struct SQLiteStateStoreTests {
    let path = Paths.temporaryDirectory() + "/state.db"
    let campaign = CampaignID(canonical: "welcome")

    @Test func committedChangesSurviveReopeningAndRolledBackOnesDoNot() throws {
        let store = try SQLiteStateStore(path: path)
        try store.begin()
        store.recordFiring(device: "d-1", campaign: campaign, at: Timestamp(milliseconds: 1000))
        store.remember(event: "e-1", records: Array("{\"a\":1}\n".utf8))
        try store.commit()
        try store.begin()
        store.recordFiring(device: "d-2", campaign: campaign, at: Timestamp(milliseconds: 2000))
        store.remember(event: "e-2", records: [])
        store.rollback()
        store.close()

        let reopened = try SQLiteStateStore(path: path)
        defer { reopened.close() }
        #expect(reopened.lastFiring(device: "d-1", campaign: campaign) == Timestamp(milliseconds: 1000))
        #expect(reopened.lastFiring(device: "d-2", campaign: campaign) == nil)
        #expect(reopened.answer(event: "e-1") == Array("{\"a\":1}\n".utf8))
        #expect(reopened.answer(event: "e-2") == nil)
    }

    @Test func anEventWithNoRecordsIsStillRemembered() throws {
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        try store.begin()
        store.remember(event: "quiet", records: [])
        #expect(store.answer(event: "quiet") == [], "the open transaction sees its own answers")
        try store.commit()
        #expect(store.answer(event: "quiet") == [])
    }

    @Test func aFailureInsideATransactionRollsItAllBackAndCommitSaysWhy() throws {
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        try store.begin()
        store.remember(event: "e-1", records: [])
        store.remember(event: "e-1", records: [])  // a second answer to one id violates the key
        #expect(throws: StoreError.self) { try store.commit() }
        #expect(store.answer(event: "e-1") == nil)
    }

    @Test func aFileThatIsNotAStateFileIsRefusedWithAnActionableMessage() throws {
        try "{\"format\":\"beaconrules-state\",\"version\":1}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: StoreError.self) { try SQLiteStateStore(path: path) }
        #expect(error?.description.contains("not a beaconrules state file") == true)
        #expect(error?.description.contains(path) == true)
    }

    /// A process started by another thread holds a copy of the lock's descriptor from its fork to
    /// its exec: a state file closed and opened again meanwhile waits for it (at most a second)
    /// rather than calling itself in use. Here another open of the lock file takes the lock once
    /// the store has closed and lets it go a tenth of a second later.
    @Test func aLockHeldElsewhereForAMomentIsWaitedForNotCalledInUse() throws {
        let first = try SQLiteStateStore(path: path)
        first.close()
        let other = open(path + ".lock", O_RDWR)
        #expect(other >= 0)
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { close(other) }
        let second = try SQLiteStateStore(path: path)
        second.close()
    }

    @Test func aSecondOpenOfTheSameFileIsRefusedWhileTheFirstHoldsIt() throws {
        let first = try SQLiteStateStore(path: path)
        defer { first.close() }
        let error = #expect(throws: StoreError.self) { try SQLiteStateStore(path: path) }
        #expect(error?.description.contains("in use by another beaconrules process") == true)
    }
}
