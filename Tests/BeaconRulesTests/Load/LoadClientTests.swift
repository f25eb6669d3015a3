import Foundation
import Synchronization
import Testing
@testable import beaconrules_load
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules-load`, the benchmarks' client: what it puts on the wire with `--sightings`, and
/// its latency by phase. Nothing here is timed; the figures it prints are only parsed.
@Suite("The load client")
struct LoadClientTests {
    static var load: String {
        URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent("beaconrules-load").path
    }

    @Test func sightingsCarryTheWallClockOfTheirSendingAndComeInStays() throws {
        let server = try LineEchoServer()
        defer { server.stop() }
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let result = try CommandRunner.run(
            ["--port", String(server.port), "--connections", "1", "--events", "200", "--devices", "10", "--sightings", "--rate", "1000", "--phase", "100"],
            executable: Self.load)
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("200 events on 1 connections"), "\(result.stdout)")
        #expect(result.stdout.contains("(0 rejected"), "\(result.stdout)")
        let rows = result.stdout.split(separator: "\n").drop { !$0.hasPrefix("lines ") }.dropFirst().map { $0.split(separator: " ").first.map(String.init) }
        #expect(rows == ["100", "200", "max"])
        #expect(result.stdout.contains("max by connection, ms: "), "\(result.stdout)")

        let lines = server.lines()
        try #require(lines.count == 200)
        var stays: [String: Int] = [:]
        for (n, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["type"] as? String == "sighting")
            let time = try #require(object["time"] as? Int64, "\(line)")
            #expect(time >= before && time <= after, "line \(n): time \(time) is not the wall clock of its sending (\(before)...\(after))")
            let device = try #require(object["device"] as? String), beacon = try #require(object["beacon"] as? String)
            stays["\(device) \(beacon) \(n / 5)", default: 0] += 1
        }
        // Five readings in a row of one device at one beacon.
        #expect(stays.count == 40 && stays.values.allSatisfy { $0 == 5 })
    }

    /// The stand-in server's thread ends when it is stopped, even though no client ever came (it
    /// used to wait in `accept` for one, outliving the test).
    @Test func theEchoServerStopsWithoutAClient() throws {
        let server = try LineEchoServer()
        #expect(server.stop())
        #expect(server.lines().isEmpty)
    }

    @Test func sightingsAreTakenByTheServerAtTheirRate() async throws {
        let result = try await ServerProcess.with(["--campaigns", "Campaigns/museum"]) { server in
            try CommandRunner.run(
                ["--port", String(server.port), "--connections", "2", "--events", "500", "--devices", "20", "--sightings", "--rate", "2000"],
                executable: Self.load)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1000 events on 2 connections"), "\(result.stdout)")
        #expect(result.stdout.contains("(0 rejected"), "\(result.stdout)")
    }

    @Test func phasesTakeTheSameShareOfEveryConnection() {
        let ms: UInt64 = 1_000_000
        let phases = LatencyPhases([[1 * ms, 2 * ms, 9 * ms], [3 * ms, 4 * ms, 5 * ms]], sent: [[0, 20, 40], [10, 30, 50]], linesPerPhase: 4).phases
        #expect(phases.map(\.lines) == [4, 2])
        #expect(phases.map(\.max) == [4 * ms, 9 * ms])
        #expect(phases.map(\.maxSentAt) == [30, 40])
        #expect(phases.map(\.p50) == [3 * ms, 9 * ms])
    }

    @Test func aSightingsTimeIsThirteenDigitsOfMilliseconds() {
        var field = [UInt8](repeating: UInt8(ascii: "x"), count: 15)
        field.withUnsafeMutableBufferPointer { WallClockStamp.write(1_780_639_200_123, to: $0.baseAddress! + 1) }
        #expect(String(decoding: field, as: UTF8.self) == "x1780639200123x")
        let (text, at) = SightingLines(run: "r", connection: 0, devices: 3).line(7)
        #expect(text.utf8.dropFirst(at).prefix(13).allSatisfy { $0 == UInt8(ascii: "0") })
        #expect(text.hasSuffix("\n"))
    }
}
