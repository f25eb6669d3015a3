@testable import BeaconRulesStore
import Foundation
import Testing

/// Checkpoints run on the checkpointer's own connection, the WAL stays bounded, and the lock file
/// keeps a second opener out.
@Suite("WAL checkpointer")
struct WALCheckpointerTests {
    let path = Paths.temporaryDirectory() + "/state.db"
    /// A WAL frame: a 4 KiB page and its 24-byte header.
    let frameBytes = 4096 + 24

    /// Commits `count` transactions of one answer (about a page each), calling `after` after each.
    /// Written to the tables, not the journal (whose folds write a few hundred rows at once, past
    /// these tests' thresholds of a few frames).
    func commit(_ store: SQLiteStateStore, _ count: Int, from first: Int = 0, after: () -> Void) throws {
        for n in first..<(first + count) {
            try store.begin()
            try store.goDirect()
            store.remember(event: "e-\(n)", records: Array(repeating: UInt8(ascii: "x"), count: 3000))
            try store.commit()
            after()
        }
    }

    /// Reopened, the file holds `count` answers, the last one whole.
    func expectReopenedHolds(_ count: Int) throws {
        let reopened = try SQLiteStateStore(path: path)
        defer { reopened.close() }
        #expect(reopened.heldAnswers == count)
        #expect(reopened.answer(event: "e-\(count - 1)")?.count == 3000)
    }

    /// Commits while a reader holds the WAL's first frames back, until the checkpointer has copied
    /// only those, then one more commit, which leaves the rest to the owner. The answers committed.
    func leaveTheLastFramesToTheOwner(_ store: SQLiteStateStore) throws -> Int {
        try commit(store, 2) {}
        // A reader from now on: a checkpoint copies nothing it could still need.
        let reader = try SQLiteConnection(path: path)
        try reader.execute("BEGIN")
        _ = try reader.integer("SELECT count(*) FROM answered")
        var n = 2
        while store.db.walFrames < 16 {
            try commit(store, 1, from: n) {}
            n += 1
        }
        store.checkpointer?.waitUntilIdle()
        #expect(store.backgroundCheckpoints == 1)
        try reader.execute("COMMIT")
        reader.close()
        try commit(store, 1, from: n) {}
        #expect(store.checkpointStepDue)
        return n + 1
    }

    func walBytes() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    @Test func checkpointsRunOnTheCheckpointersConnectionNeverInACommit() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000)
        #expect(try store.db.integer("PRAGMA wal_autocheckpoint") == 0, "SQLite's own checkpoints are off on the commit connection")
        var longest = 0
        try commit(store, 300) {
            longest = max(longest, store.db.walFrames)
            store.checkpointer?.waitUntilIdle()
        }
        #expect(store.backgroundCheckpoints > 0)
        #expect(store.inlineCheckpoints == 0)
        // Each checkpoint copies everything, so the WAL starts over: never much past the threshold.
        #expect(longest < 16 + 8)
        #expect(walBytes() < (16 + 8) * frameBytes)
        store.close()
        try expectReopenedHolds(300)
    }

    /// `.inCommits` (serve's hidden `--checkpoints-in-commits`, for the benchmark) leaves
    /// the checkpoints to SQLite, inside the commits: no checkpointer, SQLite's own threshold.
    @Test func theBenchmarksOptionLeavesCheckpointsToSQLiteInsideTheCommits() throws {
        let store = try SQLiteStateStore(path: path, checkpoints: .inCommits)
        defer { store.close() }
        #expect(store.checkpointer == nil)
        #expect(try store.db.integer("PRAGMA wal_autocheckpoint") == 1000)
        try commit(store, 1) {}
        #expect(try #require(store.walActivity).bytesWritten > 0)
        let usual = try SQLiteStateStore(path: path + "-2")
        defer { usual.close() }
        #expect(usual.checkpointer != nil)
    }

    /// A checkpoint that fails is counted with its reason (for the metrics and the log), the
    /// commits go on, and once checkpoints run again they are counted as done.
    @Test func aFailedCheckpointIsCountedWithItsReasonAndTheCommitsGoOn() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000)
        defer { store.close() }
        store.failCheckpoints(with: StoreError(path: path, message: "disk I/O error"))
        try commit(store, 60) { store.checkpointer?.waitUntilIdle() }
        let failing = try #require(store.walActivity)
        #expect(failing.failedCheckpoints > 0)
        #expect(failing.checkpoints == 0)
        #expect(failing.lastFailure?.message == "disk I/O error")
        // Each commit wrote its answer's page (3,000 bytes) and more to the WAL.
        #expect(failing.bytesWritten >= 60 * 4096)
        #expect(store.heldAnswers == 60)

        store.failCheckpoints(with: nil)
        try commit(store, 60, from: 60) { store.checkpointer?.waitUntilIdle() }
        let running = try #require(store.walActivity)
        #expect(running.checkpoints > 0)
        #expect(running.failedCheckpoints == failing.failedCheckpoints)
        #expect(running.bytesWritten > failing.bytesWritten)
    }

    @Test func theWALStaysBoundedWhenTheCheckpointerFallsBehind() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 64)
        defer { store.close() }
        store.checkpointer?.pause(true)
        var longest = 0
        try commit(store, 400) { longest = max(longest, store.db.walFrames) }
        #expect(store.backgroundCheckpoints == 0)
        #expect(store.inlineCheckpoints > 0, "the commits emptied the WAL themselves")
        #expect(longest < 64 + 8)
        #expect(walBytes() < (64 + 8) * frameBytes)

        // Once the checkpointer runs again, the commits leave the checkpoints to it.
        store.checkpointer?.pause(false)
        let inline = store.inlineCheckpoints
        try commit(store, 100, from: 400) { store.checkpointer?.waitUntilIdle() }
        #expect(store.backgroundCheckpoints > 0)
        #expect(store.inlineCheckpoints == inline)
        #expect(store.heldAnswers == 500)
    }

    /// What a commit does about the WAL: nothing short of the threshold, the checkpointer copies
    /// it back, the owner copies the last few frames itself once the idle checkpointer copied the
    /// rest (at most `walStepFrames`, or the last commit's own frames when more), or past the
    /// limit the commit empties it.
    @Test func aCommitLeavesTheLastFramesToTheOwnerOnlyOnceTheCheckpointerCopiedTheRest() {
        func step(_ frames: Int, added: Int = 10, copied: Int?) -> SQLiteStateStore.WALStep {
            SQLiteStateStore.walStep(frames: frames, added: added, copied: copied, threshold: 1024, limit: 16_384)
        }
        let most = SQLiteStateStore.walStepFrames
        #expect(step(1000, copied: nil) == .none)
        #expect(step(1024, copied: nil) == .askCheckpointer)
        #expect(step(5000, copied: 1000) == .askCheckpointer, "too much is left: the checkpointer copies it")
        #expect(step(1024 + most, copied: 1024) == .finishHere)
        #expect(step(1025 + most, copied: 1024) == .askCheckpointer)
        #expect(step(3000, added: 1500, copied: 1500) == .finishHere, "a long commit's own frames are left to the owner")
        #expect(step(16_384, copied: 16_380) == .empty)
    }

    /// Under a steady stream (no wait for the checkpointer), the WAL starts over again and again
    /// without reaching its limit: the owner copies back what was committed while the checkpointer
    /// copied. Nothing committed is lost.
    @Test func underASteadyStreamTheWALStartsOverWithoutReachingItsLimit() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000)
        var restarts = 0
        var last = 0
        try commit(store, 600) {
            store.checkpointStep()
            if store.db.walFrames < last { restarts += 1 }
            last = store.db.walFrames
        }
        #expect(restarts > 0)
        #expect(store.inlineCheckpoints == 0)
        store.close()
        try expectReopenedHolds(600)
    }

    /// The checkpointer could copy only part of the WAL (a reader held the rest back): the next
    /// commit leaves the rest to the owner, whose step copies it, and the transaction after starts
    /// the WAL over. The answers survive a reopening.
    @Test func theOwnerCopiesTheLastFramesAndTheNextTransactionStartsTheWALOver() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000)
        var n = try leaveTheLastFramesToTheOwner(store)
        let frames = store.db.walFrames
        store.checkpointStep()
        #expect(store.checkpointSteps == 1)
        #expect(!store.checkpointStepDue)
        try commit(store, 1, from: n) {}
        n += 1
        #expect(store.db.walFrames < frames, "the WAL started over")
        #expect(store.walActivity?.checkpoints == 2)
        store.close()
        try expectReopenedHolds(n)
    }

    /// `replay --state` sends no replies: the step a commit left runs at the next `begin()`.
    @Test func aStepNobodyTookRunsAtTheNextBegin() throws {
        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000)
        defer { store.close() }
        _ = try leaveTheLastFramesToTheOwner(store)
        try store.begin()
        #expect(store.checkpointSteps == 1)
        store.rollback()
    }

    /// `.betweenCommits` (serve's hidden `--checkpoints-between-commits`, for the
    /// benchmark): no thread; past the threshold a commit leaves the copy to the owner's step, and
    /// the WAL starts over at the next transaction.
    @Test func withoutTheThreadTheOwnerCopiesTheWALBackBetweenCommits() throws {
        let usual = try SQLiteStateStore(path: path + "-2", checkpoints: .betweenCommits)
        #expect(usual.checkpointer == nil)
        #expect(usual.ownerCheckpointFrames == SQLiteStateStore.walStepFrames)
        usual.close()

        let store = try SQLiteStateStore(path: path, walCheckpointFrames: 16, walLimitFrames: 100_000, checkpoints: .betweenCommits)
        var longest = 0
        try commit(store, 300) {
            longest = max(longest, store.db.walFrames)
            store.checkpointStep()
        }
        #expect(store.checkpointSteps > 0)
        #expect(store.inlineCheckpoints == 0)
        #expect(longest < 16 + 8)
        #expect(store.walActivity?.checkpoints == store.checkpointSteps)
        store.close()
        try expectReopenedHolds(300)
    }

    @Test func theLockFileKeepsASecondOpenerOutUntilTheFirstCloses() throws {
        let first = try SQLiteStateStore(path: path)
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        let error = #expect(throws: StoreError.self) { try SQLiteStateStore(path: path) }
        #expect(error?.description.contains("in use by another beaconrules process") == true)
        #expect(error?.description.contains(path + ".lock") == true)
        first.close()
        let second = try SQLiteStateStore(path: path)
        second.close()
    }
}
