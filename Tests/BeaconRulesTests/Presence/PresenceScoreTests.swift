@testable import BeaconRules
import Foundation
import Testing

/// `presence-score`: derived stays against a written movement log.
@Suite("Presence: scored against a movement log")
struct PresenceScoreTests {
    static let log = Paths.fixture("presence/movement-log-2015-03-10.csv")
    static let trace = Paths.recordedScan("FourScannersRun1-2015-03-10")

    /// The figures of the report's last lines, by name (`found: 20` gives found = 20).
    static func figures(_ report: String) -> [String: Int] {
        var figures: [String: Int] = [:]
        for line in report.split(separator: "\n") where line.hasPrefix("logged stays:") || line.hasPrefix("derived stays:") {
            let words = line.split(whereSeparator: { " ,:()".contains($0) })
            for (i, word) in words.enumerated().dropLast() {
                if let n = Int(words[i + 1]) { figures[String(word), default: n] = figures[String(word)] ?? n }
            }
        }
        return figures
    }

    @Test func theLabelledRunMeetsTheTargetsWithTheDefaultsOfRecordedScans() throws {
        let result = try CommandRunner.run(["presence-score", "--input-format", "starksm64", Self.trace, "--log", Self.log])
        #expect(result.status == 0, "\(result.stderr)")
        let f = Self.figures(result.stdout)
        // Every logged stay found; at most two false stays, none longer than a walk past a
        // doorway (60 s); at most one extra stay per logged one.
        #expect(f["stays"] == 20 && f["found"] == 20 && f["missed"] == 0, "\(result.stdout)")
        #expect((f["false"] ?? 99) <= 1, "\(result.stdout)")
        #expect((f["longest"] ?? 0) <= 60, "\(result.stdout)")
        #expect((f["most"] ?? 99) <= 1, "\(result.stdout)")
    }

    @Test func foundMissedFalseAndExtraFollowTheTolerances() throws {
        let csv = """
            # two rooms, one move somewhere in 10:05:00-10:06:00
            subject,room,from,to
            s,A,2026-01-01T10:00:00Z,2026-01-01T10:05:00Z/2026-01-01T10:06:00Z
            s,B,2026-01-01T10:05:00Z/2026-01-01T10:06:00Z,2026-01-01T10:20:00Z
            """
        let log = try MovementLog(csv: Array(csv.utf8), file: "log.csv")
        let t0: Int64 = 1_767_261_600_000 // 2026-01-01T10:00:00Z
        func stay(_ room: String, _ from: Int64, _ to: Int64) -> PresenceScore.Stay {
            PresenceScore.Stay(subject: "s", room: room, enter: t0 + from * 1000, departedAt: t0 + to * 1000 - 30_000, exit: t0 + to * 1000)
        }
        let score = PresenceScore(log: log, stays: [
            stay("A", 50, 330),     // enters 50 s late (within 60 s), exits inside the window: found
            stay("B", 480, 1230),   // enters 2 min after the window: not found, an extra of the B stay
            stay("C", 600, 640),    // a room the log never names: false, 10 s from enter to last presence
            PresenceScore.Stay(subject: "other", room: "A", enter: t0, departedAt: t0, exit: t0), // not in the log
        ])
        #expect(score.found == 1 && score.missed == 1)
        #expect(score.falseStays.map(\.room) == ["C"], "\(score.report())")
        #expect(score.falseStays.first?.length == 10_000)
        #expect(score.extras == [0, 1])
        #expect(score.ignored == 1)
        let report = score.report()
        #expect(report.contains("(none)  MISSED") && report.contains("FALSE (10 s)") && report.contains("extra"))
    }

    @Test(arguments: [
        ("subject,room,from\n", "log.csv:1: expected the header `subject,room,from,to`"),
        ("subject,room,from,to\ns,A,10:00,2026-01-01T10:00:00Z\n", "log.csv:2: `from`: expected an RFC 3339 time with a zone"),
        ("subject,room,from,to\ns,A,2026-01-01T10:00:00Z\n", "log.csv:2: expected 4 fields"),
        ("subject,room,from,to\ns,A,2026-01-01T10:00:00Z,2026-01-01T09:00:00Z\n", "log.csv:2: `to` (2026-01-01T09:00:00Z) is before `from`"),
    ])
    func mistakesInTheLogNameTheLineAndField(csv: String, message: String) {
        do {
            _ = try MovementLog(csv: Array(csv.utf8), file: "log.csv")
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func aLogThatDoesNotLoadIsBadUsageNamingTheLine() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/log.csv"
        try "subject,room,from,to\ns,A,yesterday,2026-01-01T10:00:00Z\n".write(toFile: log, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["presence-score", "--log", log, "-"], stdin: "")
        #expect(result.status == 2)
        #expect(result.stderr.contains("log.csv:2: `from`: expected an RFC 3339 time with a zone"), "\(result.stderr)")
    }
}
