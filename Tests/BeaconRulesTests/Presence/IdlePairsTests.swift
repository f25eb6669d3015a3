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
