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

    /// Device locales that choose the same campaign language share one cached tail (a silent
    /// campaign's tail is shared by every locale): each record is still the one `process` builds,
    /// and each delivery counts under its record's language.
    @Test func localesThatChooseTheSameLanguageShareATail() throws {
        let silent = """
            {"eid": "quiet", "trigger": 1, "type": 4, "beacons": ["\(Self.beacon)"], "suppressionTime": -1,
             "content": {"subject": "Q", "body": "q", "payload": {"k": 1}}}
            """
        let json = "[" + Self.campaign + "," + silent + "]"
        var fast = try Harness.engine(json)
        var reference = try Harness.engine(json)
        var written = ""
        var built = ""
        for (k, locale) in ["en-US", "en-GB", "de-DE", "en", "de-AT", "fr-FR", nil, "en-US"].enumerated() {
            let event = Harness.event(beacon: Self.beacon, at: "2026-05-10T16:0\(k):00Z", device: "d\(k)", id: "e\(k)", locale: locale)
            var writer = JSONWriter()
            fast.write(event, into: &writer)
            written += String(decoding: writer.bytes, as: UTF8.self)
            for record in reference.process(event) { built += record.jsonLine + "\n" }
        }
        #expect(written == built)
        #expect(written.split(separator: "\n").count == 16)
        #expect(fast.ledger.funnels() == reference.ledger.funnels())
        #expect(funnels(fast).sorted() == funnels(reference).sorted())
    }

    /// The usual case, where nothing changes: every delivery after the first uses the cached tail.
    @Test func tailsCachedUnderTheSameLedger() throws {
        var engine = try Harness.engine(Self.campaign)
        for minute in 1...5 { write(&engine, device: "d\(minute)", minute: minute) }
        #expect(funnels(engine) == ["offer de 5"])
    }
}
