@testable import BeaconRules
import Testing

/// A delivered notification is counted under the language its record was written in. The hot
/// path learns that language when it renders a record's tail, and for a tail it already has, it
/// relies on the ledger having been told then: these tests change the ledger between the two.
@Suite("Ledger languages of cached tails")
struct LedgerLanguageTests {
    static let beacon = "7367672374000000ffff0000ffff00070733107331"
    static let campaign = """
        {"eid": "offer", "trigger": 1, "type": 1, "beacons": ["\(beacon)"], "suppressionTime": -1,
         "content": {"subject": "Offer", "body": "10% off",
                     "payload": {"onEnter": {"en": {"title": "Offer", "message": "10% off"},
                                             "de": {"title": "Angebot", "message": "10% Rabatt"}}}}}
        """

    func write(_ engine: inout RulesEngine<InMemorySuppressionStore>, device: String, minute: Int) {
        var writer = JSONWriter()
        let time = "2026-05-10T16:\(minute < 10 ? "0" : "")\(minute):00Z"
        engine.write(Harness.event(beacon: Self.beacon, at: time, device: device, id: "e\(minute)", locale: "de-DE"), into: &writer)
        #expect(!writer.bytes.isEmpty)
    }

    func funnels(_ engine: RulesEngine<InMemorySuppressionStore>) -> [String] {
        engine.ledger.funnels().map { "\($0.campaign) \($0.language) \($0.delivered)" }
    }

    @Test func aTailCachedWhileTheLedgerWasOff() throws {
        var engine = try Harness.engine(Self.campaign)
        engine.ledger.isEnabled = false
        write(&engine, device: "d1", minute: 1)
        engine.ledger.isEnabled = true
        write(&engine, device: "d2", minute: 2)
        write(&engine, device: "d3", minute: 3)
        #expect(funnels(engine) == ["offer de 2"])
    }

    @Test func aTailCachedBeforeTheLedgerWasReplaced() throws {
        var engine = try Harness.engine(Self.campaign)
        write(&engine, device: "d1", minute: 1)
        #expect(funnels(engine) == ["offer de 1"])
        engine.ledger = DeliveryLedger()
        write(&engine, device: "d2", minute: 2)
        #expect(funnels(engine) == ["offer de 1"])
    }

    @Test func aTailCachedBeforeTheCampaignsChanged() throws {
        var engine = try Harness.engine(Self.campaign)
        write(&engine, device: "d1", minute: 1)
        engine.ledger.campaignsChanged()
        write(&engine, device: "d2", minute: 2)
        #expect(funnels(engine) == ["offer de 2"])
    }

    /// The usual case, where nothing changes: every delivery after the first uses the cached tail.
    @Test func tailsCachedUnderTheSameLedger() throws {
        var engine = try Harness.engine(Self.campaign)
        for minute in 1...5 { write(&engine, device: "d\(minute)", minute: minute) }
        #expect(funnels(engine) == ["offer de 5"])
    }
}
