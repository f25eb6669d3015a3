@testable import BeaconRules
import Testing

/// A ledger that other processes share through their store (`merge(saved:)`, tombstones): what
/// one process saved is joined to what another holds, and a delivery one forgot is late for all.
struct SharedLedgerTests {
    let responses = ResponseTests()

    func lines(_ ledger: DeliveryLedger) throws -> [JSONValue] {
        try ledger.allLines().map { try JSONParser.parse($0.json) }
    }

    @Test func anotherProcessStatesClicksAndRescheduledIdsAreJoinedToThisOnes() throws {
        var a = try responses.delivered()
        var b = try Harness.engine(ResponseTests.campaign)
        try b.ledger.merge(saved: lines(a.ledger))
        _ = try b.respond(to: responses.response(.click, "later"))
        _ = try a.respond(to: responses.response(.dismiss))
        try a.ledger.merge(saved: lines(b.ledger))

        let f = a.ledger.funnels()[0]
        #expect((f.delivered, f.presented, f.opened, f.clicked, f.dismissed) == (1, 1, 1, 1, 1))
        #expect(f.clicks == ["later": 1])
        #expect(a.ledger.entryIndex("offer:d1:e1:snooze") != nil)
        // The click's handler ran on B: not again on A.
        #expect(try a.respond(to: responses.response(.click, "later")).outputs.isEmpty)
        // Merging the same lines again changes nothing.
        let before = a.ledger.allLines()
        try a.ledger.merge(saved: lines(b.ledger))
        #expect(a.ledger.allLines() == before)
    }

    @Test func aDeliveryOneProcessForgotIsRefusedAsLateByAnother() throws {
        var a = try responses.delivered()
        a.ledger.recordsChanges = true
        a.ledger.savesTombstones = true
        var b = try Harness.engine(ResponseTests.campaign)
        try b.ledger.merge(saved: lines(a.ledger))
        _ = a.ledger.takeChanges()

        // A's event time is 8 days on: the delivery (window 7 days) is forgotten, a tombstone saved.
        #expect(a.ledger.forget(windowEndedBy: 1_778_428_800_000 + 8 * 86_400_000, limit: 10) == 1)
        let changes = a.ledger.takeChanges()
        #expect(changes.contains { $0.key.hasPrefix("0:") && $0.isRemoval })
        let tombstones = changes.filter { $0.key.hasPrefix("4:") && !$0.isRemoval }
        #expect(tombstones.count == 1)
        #expect(tombstones.first?.key == DeliveryLedger.lineKeys(naming: "offer:d1:e1")[2])

        // B held the delivery: the tombstone takes it away; a response within the window by its
        // time is late, as on A.
        try b.ledger.merge(saved: tombstones.map { try JSONParser.parse($0.json) })
        #expect(b.ledger.entryIndex("offer:d1:e1") == nil)
        for var engine in [a, b] {
            #expect(throws: ResponseError.self) { try engine.respond(to: responses.response(.open)) }
            do { _ = try engine.respond(to: responses.response(.open)) } catch { #expect(error.kind == .outsideResponseWindow) }
        }
    }
}
