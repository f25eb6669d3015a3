import BeaconRules
import BeaconRulesService
import Foundation
import Synchronization
import Testing

/// `RulesService` commits on the engine owner's thread, not on the cooperative pool. The proof
/// runs in a child process started with `LIBDISPATCH_COOPERATIVE_POOL_STRICT=1` (a pool of one
/// thread: the variable must be set before the process starts): the test binary itself, re-run
/// with a filter naming the child test.
@Suite("RulesService off the cooperative pool")
struct ServiceOffThePoolTests {
    /// Set in the child's environment: the child test runs only there.
    static let childVariable = "BEACONRULES_STRICT_POOL_CHILD"
    static let calls = 1_000

    @Test func aTaskKeepsTickingWhileTheServiceCommitsAThousandCallsToSQLiteOnAPoolOfOneThread() throws {
        let binary = try #require(Bundle.main.executablePath ?? CommandLine.arguments.first)
        let run = try CommandRunner.run(
            ["--testing-library", "swift-testing", "--filter", "theChildTicksWhileTheServiceCommits"], executable: binary,
            environment: ["LIBDISPATCH_COOPERATIVE_POOL_STRICT": "1", Self.childVariable: "1"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let report = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("strict pool:") }, "\(run.stdout)\n\(run.stderr)")
        print(report)
        let fields = Self.fields(of: String(report))
        #expect(try #require(fields["calls"]) == Self.calls)
        #expect(try #require(fields["calls with a tick inside"]) > 0)
    }

    /// `name=value` pairs of the child's report (integers).
    static func fields(of report: String) -> [String: Int] {
        var fields: [String: Int] = [:]
        for pair in report.dropFirst("strict pool:".count).split(separator: ";") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) {
                fields[parts[0].trimmingCharacters(in: .whitespaces)] = value
            }
        }
        return fields
    }

    /// The child: a task sleeping 1 ms at a time counts its ticks while the service commits
    /// `calls` single-event calls to an SQLite file, one after the other. A call during which the
    /// count moved ran while the one pool thread was free for the ticker.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[ServiceOffThePoolTests.childVariable] != nil))
    func theChildTicksWhileTheServiceCommits() async throws {
        let state = Paths.temporaryDirectory() + "/strict-pool.state"
        let rules = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), state: .sqlite(path: state))
        let events = try (0..<Self.calls).map { try EventParser.parse(line: Self.event($0), fallbackID: "x") }
        let ticks = TickCount()
        let ticker = Task {
            var last = ContinuousClock.now
            var largestGap = Duration.zero
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(1))
                let now = ContinuousClock.now
                largestGap = max(largestGap, now - last)
                last = now
                ticks.value.add(1, ordering: .relaxed)
            }
            return largestGap
        }
        let start = ContinuousClock.now
        let ticksBefore = ticks.value.load(ordering: .relaxed)
        var callsWithATick = 0
        for event in events {
            let before = ticks.value.load(ordering: .relaxed)
            _ = try await rules.process(event)
            if ticks.value.load(ordering: .relaxed) > before { callsWithATick += 1 }
        }
        let elapsed = ContinuousClock.now - start
        let ticksDuring = ticks.value.load(ordering: .relaxed) - ticksBefore
        ticker.cancel()
        let largestGap = await ticker.value
        await rules.close()
        print("strict pool: calls=\(Self.calls); calls with a tick inside=\(callsWithATick); ticks=\(ticksDuring); elapsed ms=\(Self.milliseconds(elapsed)); largest gap µs=\(Self.microseconds(largestGap))")
        #expect(ticksDuring > 0)
        #expect(callsWithATick > 0)
    }

    /// The `n`th event: one of 50 visitors entering the museum's entrance, a second apart.
    static func event(_ n: Int) -> String {
        let seconds = n % 60, minutes = n / 60
        let time = "2026-06-05T10:" + (minutes < 10 ? "0" : "") + "\(minutes):" + (seconds < 10 ? "0" : "") + "\(seconds)+02:00"
        return #"{"id":"strict-\#(n)","device":"visitor-\#(n % 50)","type":"enter","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"\#(time)"}"#
    }

    static func milliseconds(_ duration: Duration) -> Int { Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000) }
    static func microseconds(_ duration: Duration) -> Int { Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000) }
}

/// The ticker's count, read by the calling task.
final class TickCount: Sendable {
    let value = Atomic<Int>(0)
}
