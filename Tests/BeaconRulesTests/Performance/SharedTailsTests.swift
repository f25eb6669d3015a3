@testable import BeaconRules
import Testing

/// Engines that run side by side (`replay --jobs N`'s shards) share the tails they render
/// (`SharedTails`): each tail is rendered by the first engine that needs it, and the others take
/// it instead of rendering it again, with the very records one engine writes.
@Suite("Tails shared between engines")
struct SharedTailsTests {
    static let beacon = "7367672374000000ffff0000ffff00070733107331"
    /// Enter tails are shared by language (the campaign has an `onEnter` block); exit tails
    /// depend on the device's locale (no `onExit` block), and each engine renders its own.
    static let campaigns = """
        {"actions": [{"eid": "offer", "trigger": 3, "type": 1, "beacons": ["\(beacon)"], "suppressionTime": -1,
          "content": {"subject": "Offer", "body": "10% off", "payload": {"onEnter": {
            "en": {"title": "Offer", "message": "10% off"}, "de": {"title": "Angebot", "message": "10% Rabatt"}}}}}]}
        """

    /// The records of one event per (device, locale, trigger), from a fresh engine.
    func records(_ engine: inout RulesEngine<InMemorySuppressionStore>, devices: [String]) -> [UInt8] {
        var writer = JSONWriter()
        for (n, device) in devices.enumerated() {
            for (k, locale) in ["de-DE", "en", "fr", nil].enumerated() {
                for (m, kind) in [EventKind.enter, .exit].enumerated() {
                    let time = "2026-05-10T1\(k):\(10 + n % 40):\(10 + m)Z"
                    engine.write(Harness.event(kind, beacon: Self.beacon, at: time, device: device + "-\(k)", id: "e\(n)-\(k)-\(m)", locale: locale), into: &writer)
                }
            }
        }
        return writer.bytes
    }

    @Test func aSecondEngineTakesTheTailsTheFirstRendered() throws {
        let set = CampaignSet(try Harness.campaigns(Self.campaigns))
        var alone = RulesEngine(campaigns: set, locales: Harness.locales, store: InMemorySuppressionStore())
        let shared = SharedTails()
        var first = RulesEngine(campaigns: set, locales: Harness.locales, store: InMemorySuppressionStore(), sharedTails: shared)
        var second = RulesEngine(campaigns: set, locales: Harness.locales, store: InMemorySuppressionStore(), sharedTails: shared)
        let expected = records(&alone, devices: ["a", "b"])
        #expect(records(&first, devices: ["a", "b"]) == expected)
        let published = shared.count
        #expect(published > 0)
        #expect(records(&second, devices: ["a", "b"]) == expected, "the same records from tails another engine rendered")
        #expect(shared.count == published, "the second engine rendered none of the shared tails again")
        #expect(second.ledger.funnels().map(\.language) == first.ledger.funnels().map(\.language))
    }
}
