import Foundation

/// Generated event traces for the museum campaigns: per device a day of enter/exit events at the
/// four museum beacons, minutes apart, so suppression, once-only and time frames all take part.
enum MuseumTrace {
    static let beacons = (1...4).map { "b9407f30f5f8466eaff925556b57fe6d001000000\($0)" }
    static let locales = ["de-DE", "en", "fr_FR", "pt-BR", "ja", "zh-Hant-TW", nil]

    /// Lines per device, in event order; ids `PREFIX-DEVICE-N`.
    static func devices(_ count: Int, events: Int, prefix: String = "t", seed: UInt64 = 42) -> [[String]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { d in
            let device = "\(prefix)-dev-\(d)"
            let locale = locales[Int(random.next() % UInt64(locales.count))]
            var time: Int64 = 1_780_639_200_000 // 2026-06-05T06:00:00Z
            var lines: [String] = []
            var inside: Int?
            for n in 0..<events {
                time += Int64(random.next() % 45 + 1) * 60_000
                let type: String, beacon: Int
                if let current = inside, random.next() % 3 != 0 {
                    type = "exit"; beacon = current; inside = nil
                } else {
                    type = "enter"; beacon = Int(random.next() % 4); inside = beacon
                }
                var line = "{\"id\":\"\(prefix)-\(d)-\(n)\",\"device\":\"\(device)\",\"type\":\"\(type)\",\"beacon\":\"\(beacons[beacon])\",\"time\":\(time)"
                if let locale { line += ",\"locale\":\"\(locale)\"" }
                lines.append(line + "}")
            }
            return lines
        }
    }

    /// One trace from several devices' lines, interleaved round-robin (each device keeps its order).
    static func interleave(_ perDevice: [[String]]) -> [String] {
        var result: [String] = []
        let longest = perDevice.map(\.count).max() ?? 0
        for n in 0..<longest { for lines in perDevice where n < lines.count { result.append(lines[n]) } }
        return result
    }
}

/// A small deterministic generator, so a failing trace can be made again.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What `serve` must answer, taken from a clean `replay` of the same trace.
struct ReplayOracle {
    /// Reply line by event id.
    var replies: [String: String] = [:]
    var stdout: String

    /// Runs `replay` on `lines` (with `--state` when given) and builds the expected reply per event.
    init(lines: [String], directory: String, state: String? = nil, extra: [String] = []) throws {
        let trace = directory + "/oracle-trace.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["replay", trace] + (state.map { ["--state", $0] } ?? []) + extra)
        stdout = result.stdout
        var records: [String: [String]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            records[object?["event"] as? String ?? "", default: []].append(String(line))
        }
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let id = object?["id"] as? String else { continue }
            replies[id] = "{\"ok\":true,\"event\":\"\(id)\",\"records\":[" + (records[id] ?? []).joined(separator: ",") + "]}"
        }
    }
}
