@testable import BeaconRules
import Testing

/// The sweep of idle pairs goes at the pace of the input: a clock step that came with input
/// forgets at most four pairs an input (a server steps its clock after every batch, so a fixed
/// slice a step would forget thousands of pairs a second at the start of a sweep and hold up the
/// replies); a step with no input (the clock alone) takes a slice of 1,024 slots. Each slice's
/// size is seen by what it forgets: slots held by idle pairs only, each forgotten when looked at.
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

    /// A layer whose sweep of idle pairs has just started, on a step with no input: 3,000 phones
    /// heard once each in the first three seconds (fewer pairs than start a sweep), then, two
    /// minutes later, 1,100 new phones at once. The clock steps to their time (with input: they
    /// are held, `maxLateness`, so the pairs stay 3,000 and no sweep starts), then on by the
    /// lateness with no input: the new phones become pairs (4,100, past `firstSweep`) and that
    /// step starts the sweep. Every early phone is idle by then; the new ones are not.
    static func sweepStartedByAStepWithNoInput() throws -> (layer: PresenceLayer, forgotten: Int) {
        var layer = PresenceLayer(settings: PresenceSettings(), campaigns: try CampaignSet(Harness.campaigns(ExclusiveZoneTests.campaigns)))
        layer.idleHorizon = 60_000
        for n in 0..<3_000 {
            try add(&layer, device: "early-\(n)", at: Int64(n), id: "a\(n)")
            layer.advance(to: start + Int64(n))
        }
        let late: Int64 = 200_000
        for n in 0..<1_100 { try add(&layer, device: "late-\(n)", at: late, id: "b\(n)") }
        layer.advance(to: start + late)
        #expect(layer.pairCount == 3_000 && layer.sweepNext == nil && layer.pairsForgotten == 0)
        layer.advance(to: start + late + layer.settings.maxLatenessMilliseconds)
        #expect(layer.pairCount + layer.pairsForgotten == 4_100)
        return (layer, layer.pairsForgotten)
    }

    @Test func aStepWithNoInputLooksAt1024Slots() throws {
        let started = try Self.sweepStartedByAStepWithNoInput()
        var layer = started.layer
        // The early phones fill the first 3,000 slots: the step forgot those of the first 1,024.
        #expect(started.forgotten == PresenceLayer.sweepStep)
        #expect(layer.sweepNext == PresenceLayer.sweepStep)
        // The next step with no input (the clock alone) looks at the next 1,024.
        layer.advance(to: Self.start + 201_000 + layer.settings.maxLatenessMilliseconds)
        #expect(layer.pairsForgotten == 2 * PresenceLayer.sweepStep)
        #expect(layer.sweepNext == 2 * PresenceLayer.sweepStep)
        // The third reaches the new phones' slots (from 3,000 on): the 952 early phones left go,
        // the new ones (not idle) stay.
        layer.advance(to: Self.start + 202_000 + layer.settings.maxLatenessMilliseconds)
        #expect(layer.pairsForgotten == 3_000)
        #expect(layer.keys.count == 1_100 && layer.keys.allSatisfy { $0.device.hasPrefix("late-") })
    }

    @Test func aStepWithInputLooksAtFourSlotsAnInput() throws {
        var (layer, _) = try Self.sweepStartedByAStepWithNoInput()
        var slot = PresenceLayer.sweepStep
        var time: Int64 = 201_000
        // Steps with 1, 2 and 5 inputs, all in slots ahead of the sweep held by idle early phones:
        // each step forgets (and looks at) four slots an input, no more.
        for inputs in [1, 2, 5] {
            let before = layer.pairsForgotten
            for n in 0..<inputs { try Self.add(&layer, device: "new-\(time)-\(n)", at: time, id: "c\(time)-\(n)") }
            layer.advance(to: Self.start + time)
            #expect(layer.pairsForgotten - before == PresenceLayer.sweptPerInput * inputs)
            slot += PresenceLayer.sweptPerInput * inputs
            #expect(layer.sweepNext == slot)
            time += 1_000
        }
    }
}
