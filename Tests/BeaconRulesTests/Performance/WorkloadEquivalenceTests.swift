@testable import BeaconRules
import BenchmarkWorkload
import Foundation
import Testing

/// The benchmark's workload, small: the fast path must give exactly the reference path's records,
/// and the benchmark itself must run (CI checks it works; it never asserts a speed).
@Suite("Benchmark workload")
struct WorkloadEquivalenceTests {
    static let spec = WorkloadSpec(campaigns: 400, uuids: 8, events: 20_000, devices: 1_500)

    static func events() -> String {
        var bytes: [UInt8] = []
        spec.generateEvents { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func fastPathGivesExactlyTheReferenceRecords() throws {
        let campaigns = try Harness.campaigns(String(decoding: Self.spec.campaignsJSON(), as: UTF8.self))
        let events = Self.events()
        var engine = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        let (fast, errors) = Harness.replay(events, source: "workload.jsonl", engine: &engine)
        #expect(errors.isEmpty)
        var reference = ReferencePath(campaigns: campaigns, locales: Harness.locales)
        let slow = reference.replay(events, source: "workload.jsonl")
        let fastLines = fast.split(separator: "\n")
        let slowLines = slow.split(separator: "\n")
        #expect(fastLines.count == slowLines.count)
        #expect(fastLines.count > 5_000, "the workload should exercise many records")
        for (i, (a, b)) in zip(fastLines, slowLines).enumerated() where a != b {
            Issue.record("record \(i + 1) differs:\nfast: \(a)\nslow: \(b)")
            break
        }
    }

    /// Past its limits (hostile input: endless made-up beacons) the engine works candidates out
    /// per event, unsplit by trigger: with the limits at zero every event takes that path, and
    /// the records must not change. Half-way limits mix the two paths.
    @Test(arguments: [(0, 0), (40, 1_000)])
    func perEventCandidatesGiveTheSameRecords(beaconLimit: Int, rowLimit: Int) throws {
        let campaigns = try Harness.campaigns(String(decoding: Self.spec.campaignsJSON(), as: UTF8.self))
        let events = Self.events()
        var numbered = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        var limited = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        limited.caches.candidateIndex.beaconLimit = beaconLimit
        limited.caches.candidateIndex.rowLimit = rowLimit
        let (expected, _) = Harness.replay(events, source: "workload.jsonl", engine: &numbered)
        let (got, errors) = Harness.replay(events, source: "workload.jsonl", engine: &limited)
        #expect(errors.isEmpty)
        // Both paths were taken as the arguments say: none numbered at zero, some but not all otherwise.
        if beaconLimit == 0 {
            #expect(limited.numberedBeacons == 0)
        } else {
            #expect(limited.numberedBeacons > 0 && limited.numberedBeacons < numbered.numberedBeacons)
        }
        let a = expected.split(separator: "\n"), b = got.split(separator: "\n")
        #expect(a.count == b.count)
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            Issue.record("record \(i + 1) differs:\nnumbered: \(x)\nper event: \(y)")
            break
        }
    }

    @Test func workloadIsTheSameForTheSameSeed() {
        #expect(Self.spec.campaignsJSON() == Self.spec.campaignsJSON())
        #expect(Self.events() == Self.events())
        var other = Self.spec
        other.seed += 1
        #expect(other.campaignsJSON() != Self.spec.campaignsJSON())
    }

    @Test func benchmarkRunsAndReportsEveryFigure() throws {
        let work = Paths.temporaryDirectory()
        let bench = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent("beaconrules-bench").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bench)
        process.arguments = ["--campaigns", "200", "--events", "3000", "--devices", "300", "--load-campaigns", "500",
                             "--runs", "1", "--cpu=-1", "--work", work, "--binary", Paths.binary]
        process.currentDirectoryURL = Paths.root
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for row in ["replay, end to end", "`wc -l` on the same file", "replay / `wc -l`", "the events alone", "records", "peak RSS", "loading 500 campaigns", "per (device, campaign) entry"] {
            #expect(text.contains(row), "missing \(row) in:\n\(text)")
        }
    }
}

/// One beacon with more candidates than `RulesEngine.matchChunk` decides at once: actions that
/// share an eid sit more than a chunk apart, some keep state and some do not, so the first action
/// of an eid that fires must win across chunks and state must be read before any is written.
@Suite("Many candidates for one beacon")
struct ManyCandidatesTests {
    static let uuid = "f7826da64fa24e988024bc5b71e0893e"

    static func campaignsJSON() -> String {
        var actions: [String] = []
        for i in 0..<(RulesEngine<InMemorySuppressionStore>.matchChunk * 3 + 5) {
            let eid = "eid\(i % 40)"
            let beacon = i % 3 == 0 ? "\"\(uuid)\"" : "\"\(uuid)0000100002\""
            let suppression = ["\"suppressionTime\":-1", "\"suppressionTime\":0", "\"suppressionTime\":600", "\"sendOnlyOnce\":true"][i % 4]
            let trigger = [1, 2, 3][i % 3]
            let delay = i % 5 == 0 ? ",\"delay\":30" : ""
            actions.append("""
            {"eid":"\(eid)","trigger":\(trigger),"type":1,"beacons":[\(beacon)],\(suppression)\(delay),"content":{"subject":"S\(i)","body":"B\(i)"}}
            """)
        }
        return "[" + actions.joined(separator: ",\n") + "]"
    }

    static func events() -> String {
        var lines: [String] = []
        var seconds = 0
        for round in 0..<12 {
            for device in 0..<3 {
                for type in ["enter", "exit"] {
                    seconds += 97 + round
                    let time = Timestamp(milliseconds: 1_780_639_200_000 + Int64(seconds) * 1000)
                    lines.append("{\"id\":\"e\(lines.count)\",\"device\":\"d\(device)\",\"type\":\"\(type)\",\"beacon\":\"\(uuid)0000100002\",\"time\":\"\(time)\",\"locale\":\"en-US\"}")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func recordsAreTheReferencePathsAcrossChunks() throws {
        let campaigns = try Harness.campaigns(Self.campaignsJSON())
        var engine = RulesEngine(campaigns: CampaignSet(campaigns), locales: Harness.locales, store: InMemorySuppressionStore())
        let (fast, errors) = Harness.replay(Self.events(), source: "many.jsonl", engine: &engine)
        #expect(errors.isEmpty)
        var reference = ReferencePath(campaigns: campaigns, locales: Harness.locales)
        let slow = reference.replay(Self.events(), source: "many.jsonl")
        let fastLines = fast.split(separator: "\n"), slowLines = slow.split(separator: "\n")
        #expect(fastLines.count == slowLines.count)
        // 72 events, each firing at most one action per eid (40 eids): more records than events
        // means the chunks were really exercised.
        #expect(fastLines.count > 72, "fewer records than events")
        for (i, (a, b)) in zip(fastLines, slowLines).enumerated() where a != b {
            Issue.record("record \(i + 1) differs:\nfast: \(a)\nslow: \(b)")
            break
        }
    }
}
