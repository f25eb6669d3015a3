@testable import BeaconRules
import Testing

/// The sweep of idle pairs goes at the pace of the input: a clock step that came with input
/// forgets at most four pairs an input (a server steps its clock after every batch, so a fixed
/// slice a step would forget thousands of pairs a second at the start of a sweep and hold up the
/// replies); a step with no input (the clock alone) takes a slice of 1,024 slots.
@Suite("Presence: the sweep of idle pairs keeps the input's pace")
struct SweepPaceTests {
    static let start = IdlePairsTests.start

    static func add(_ layer: inout PresenceLayer, device: String, at ms: Int64, id: String) throws {
        let line = IdlePairsTests.sighting(ms, device: device, room: 1, rssi: -60)
        let input = try Array(line.utf8).withUnsafeBufferPointer { try EventParser.parsePresenceInput(line: $0, fallbackID: id) }
        try layer.add(input)
    }

    @Test func aStepWithInputForgetsAtMostFourPairsAnInput() throws {
        var layer = PresenceLayer(settings: PresenceSettings(), campaigns: try CampaignSet(Harness.campaigns(ExclusiveZoneTests.campaigns)))
        layer.idleHorizon = 60_000
        // 5,000 phones heard once each in the first five seconds, then never again.
        for n in 0..<5_000 {
            try Self.add(&layer, device: "early-\(n)", at: Int64(n), id: "a\(n)")
            layer.advance(to: Self.start + Int64(n))
        }
        #expect(layer.pairsForgotten == 0)
        // Two minutes later, new phones, one a step: the sweep starts once the pairs reach twice
        // those the last sweep kept, and forgets the early ones (idle now) a few at a time.
        var mostForgotten = 0
        for n in 0..<10_000 {
            let before = layer.pairsForgotten
            let t = 200_000 + 3 * Int64(n)
            try Self.add(&layer, device: "late-\(n)", at: t, id: "b\(n)")
            layer.advance(to: Self.start + t)
            mostForgotten = max(mostForgotten, layer.pairsForgotten - before)
        }
        // At most four an input (a slice of 1,024 slots a step forgot 1,024 at once), and yet every
        // early phone is gone and the late ones (not idle yet) are kept.
        #expect(mostForgotten == PresenceLayer.sweptPerInput)
        #expect(layer.pairsForgotten == 5_000)
        #expect(!layer.keys.isEmpty && layer.keys.allSatisfy { $0.device.hasPrefix("late-") })
    }
}
