@testable import BeaconRules
import Testing

/// A server's presence layer holds the (device, beacon) pairs in use, not every pair ever seen
/// (SPEC sections 5 and 7): a pair with no open stay and no input for the answer retention is
/// forgotten, and what the others decide does not change.
@Suite("Presence: idle pairs are forgotten")
struct IdlePairsTests {
    static let start: Int64 = 1_462_896_000_000
    static let rooms = ExclusiveZoneTests.rooms

    static func sighting(_ ms: Int64, device: String, room: Int, rssi: Int) -> String {
        #"{"type":"sighting","device":"\#(device)","beacon":"\#(rooms[room - 1])","rssi":\#(rssi),"time":\#(start + ms)}"#
    }

    /// `visitors` phones, one every two seconds, each heard ten times in room 1 and then ten
    /// times in room 2 (a stay in each, then silence: its exits); and a guard heard in room 3
    /// every two seconds from the first visitor to the last (a stay open all along).
    static func day(visitors: Int) -> [(time: Int64, line: String)] {
        var lines: [(time: Int64, line: String)] = []
        for visitor in 0..<visitors {
            let arrival = Int64(visitor) * 2_000
            for reading in 0..<10 {
                let t = arrival + Int64(reading) * 1_000
                lines.append((t, sighting(t, device: "visitor-\(visitor)", room: 1, rssi: -60)))
                lines.append((t + 12_000, sighting(t + 12_000, device: "visitor-\(visitor)", room: 2, rssi: -60)))
            }
        }
        for t in stride(from: Int64(0), through: Int64(visitors) * 2_000 + 20_000, by: 2_000) {
            lines.append((t, sighting(t, device: "guard", room: 3, rssi: -55)))
        }
        return lines.sorted { $0.time < $1.time }
    }

    /// The lines through a layer as a server runs it (its clock moved on after each line), and
    /// what came out, as text (the last visitors' exits still pending).
    static func serve(_ lines: [(time: Int64, line: String)], settings: PresenceSettings, idleHorizon: Int64) throws -> (layer: PresenceLayer, outputs: [String]) {
        var layer = PresenceLayer(settings: settings, campaigns: try CampaignSet(Harness.campaigns(ExclusiveZoneTests.campaigns)))
        layer.idleHorizon = idleHorizon
        var outputs: [String] = []
        for (i, item) in lines.enumerated() {
            let input = try Array(item.line.utf8).withUnsafeBufferPointer { try EventParser.parsePresenceInput(line: $0, fallbackID: "l:\(i)") }
            try layer.add(input)
            layer.advance(to: start + item.time)
            outputs += layer.take().map { "\($0)" }
        }
        return (layer, outputs)
    }

    @Test(arguments: [nil, PresenceSubject.device])
    func aServerKeepsThePairsInUseAndDecidesAsIfItKeptThemAll(zones: PresenceSubject?) throws {
        var settings = PresenceSettings()
        settings.exclusiveZones = zones
        let lines = Self.day(visitors: 6_000)
        let forgetting = try Self.serve(lines, settings: settings, idleHorizon: 60_000)
        let keeping = try Self.serve(lines, settings: settings, idleHorizon: Int64.max / 4)

        #expect(forgetting.outputs == keeping.outputs)
        #expect(forgetting.outputs.count >= 2 * 5_990)
        // 12,001 pairs were seen; those kept never reach twice the pairs the first sweep waits for.
        #expect(keeping.layer.keys.count == 12_001)
        #expect(forgetting.layer.keys.count < 2 * PresenceLayer.firstSweep)
        // The guard's stay is open all along: its pair is kept, inside.
        #expect(forgetting.layer.tracker(PresenceKey(device: "guard", beacon: BeaconID(pid: Self.rooms[2])!))?.isInside == true)
    }

    /// The sweep of idle pairs goes a slice per clock step. Swept in slices of any size, a layer
    /// forgets the very pairs a sweep at once forgets, keeps the others' state in the order they
    /// were first seen, and decides the same from then on: new pairs take the freed slots, and
    /// the timers of the forgotten pairs fire for nothing.
    @Test(arguments: [nil, PresenceSubject.device])
    func aSweepInSlicesForgetsWhatASweepAtOnceForgets(zones: PresenceSubject?) throws {
        var settings = PresenceSettings()
        settings.exclusiveZones = zones
        let lines = Self.day(visitors: 3_000)
        let half = lines.count / 2
        let (first, _) = try Self.serve(Array(lines[..<half]), settings: settings, idleHorizon: Int64.max / 4)
        var atOnce = first
        atOnce.idleHorizon = 60_000
        let now = atOnce.watermark
        atOnce.forgetIdlePairs(at: now)
        for slice in [1, 7, 500] {
            var sliced = first
            sliced.idleHorizon = 60_000
            sliced.sweepNext = 0
            var steps = 0
            repeat {
                sliced.forgetIdlePairs(at: now, limit: slice)
                steps += 1
            } while sliced.sweepNext != nil
            #expect(steps >= first.pairKeys.count / slice)
            #expect(sliced.keys == atOnce.keys, "slices of \(slice)")
            #expect(sliced.keys.count < first.keys.count / 2)
            #expect(sliced.keys.map { sliced.tracker($0)!.lastInput } == atOnce.keys.map { atOnce.tracker($0)!.lastInput })
            // The rest of the day through both: the same outputs.
            var a = atOnce, b = sliced
            var outputsA: [String] = [], outputsB: [String] = []
            for (i, item) in lines[half...].enumerated() {
                let input = try Array(item.line.utf8).withUnsafeBufferPointer { try EventParser.parsePresenceInput(line: $0, fallbackID: "r:\(i)") }
                try a.add(input)
                try b.add(input)
                a.advance(to: Self.start + item.time)
                b.advance(to: Self.start + item.time)
                outputsA += a.take().map { "\($0)" }
                outputsB += b.take().map { "\($0)" }
            }
            #expect(outputsA == outputsB, "slices of \(slice)")
            #expect(outputsA.count > 2_000)
            #expect(a.keys == b.keys)
        }
    }

    @Test func aSavedStateKeepsWhenEachPairWasLastHeard() throws {
        var settings = PresenceSettings()
        settings.exclusiveZones = nil
        let engine = PresenceEngine(engine: try Harness.engine(ExclusiveZoneTests.campaigns), settings: settings)
        var running = engine
        var writer = JSONWriter()
        for (i, item) in Self.day(visitors: 3).enumerated() {
            _ = try Array(item.line.utf8).withUnsafeBufferPointer { try running.replay(line: $0, fallbackID: "l:\(i)", into: &writer) }
        }
        var restored = engine
        try restored.restore(running.snapshot())
        #expect(restored.layer.trackers.map(\.lastInput) == running.layer.trackers.map(\.lastInput))
        #expect(restored.layer.trackers.contains { $0.lastInput > Self.start })
    }

    @Test func aPairWithAnOpenStayOrAnInputWithinTheHorizonIsKept() {
        var tracker = PresenceTracker(settings: PresenceSettings())
        tracker.lastInput = 1_000
        #expect(tracker.isForgettable(at: 61_000, after: 60_000))
        #expect(!tracker.isForgettable(at: 60_999, after: 60_000))
        _ = tracker.admit(id: "s", at: 1_000)
        #expect(!tracker.isForgettable(at: 1_000_000, after: 60_000))
    }
}
