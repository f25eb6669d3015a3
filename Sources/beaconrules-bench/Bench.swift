import ArgumentParser
import BeaconRules
import BenchmarkWorkload
import CampaignFiles
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules-bench`: replay throughput against `wc -l` on the same file, campaign load time,
/// state size per entry and peak memory, on a seeded workload. Run it on a release build.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beaconrules-bench",
        abstract: "Measure beaconrules replay on a seeded workload (release build; see README)."
    )

    @Option(help: "Campaigns in the workload.") var campaigns = 10_000
    @Option(help: "Events in the workload.") var events = 1_000_000
    @Option(help: "Distinct devices.") var devices = 100_000
    @Option(help: "Campaigns for the load-time measurement.") var loadCampaigns = 100_000
    @Option(help: "Folder for the generated workload (reused when the spec is unchanged).") var work = ".build/bench"
    @Option(help: "The beaconrules binary to measure.") var binary = ".build/release/beaconrules"
    @Option(help: "Timed runs of each command; the best is reported.") var runs = 3
    @Option(help: "Pin measured commands to this CPU (one core) with taskset; -1 to not pin.") var cpu = 0

    @Flag(help: "Only measure the load of --load-campaigns campaigns (scripts/jobs-benchmark.sh).") var loadOnly = false
    @Flag(help: "A workload where an event fires about seven records (~5 KB out per event): 50 beacons per venue.") var outputHeavy = false

    @Flag(help: .hidden) var measureState = false

    func run() throws {
        if measureState {
            print(String(format: "%.1f", StateSize.measure(devices: 100_000, campaignsPerDevice: 10)))
            return
        }
        if loadOnly {
            let load = try Workspace.measureLoad(spec: WorkloadSpec(campaigns: loadCampaigns, events: 0, devices: 1), folder: work)
            print("loading \(loadCampaigns) campaigns from 10 files (\(String(format: "%.1f", load.megabytes)) MB of JSON): \(String(format: "%.3f", load.seconds)) s (read, parse and decode \(String(format: "%.3f", load.decode)) s, index \(String(format: "%.3f", load.seconds - load.decode)) s)")
            return
        }
        var spec = WorkloadSpec(campaigns: campaigns, events: events, devices: devices)
        spec.locales = ["de-DE", "fr-FR", "en-US"]
        if outputHeavy { spec.beaconsPerVenue = 50 }
        let files = try Workspace.prepare(spec: spec, folder: work)
        let eventBytes = Double(files.eventBytes)
        print("workload: \(campaigns) campaigns over \(spec.uuids) UUIDs, \(events) events (\(String(format: "%.1f", eventBytes / 1e6)) MB) over \(devices) devices, \(spec.locales.count) locales")

        let pin = cpu >= 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") ? ["/usr/bin/taskset", "-c", String(cpu)] : []
        // Both commands read the file from the page cache: a cold first read would time the disk.
        _ = try Spawn.run(["/bin/cat", files.events])
        let wcRuns = try (0..<runs).map { _ in try Spawn.run(pin + ["/usr/bin/wc", "-l", files.events]) }
        let wc = wcRuns.min { $0.seconds < $1.seconds }!
        let wcCPU = wcRuns.map(\.cpuSeconds).min()!
        let replayArgs = pin + [binary, "replay", files.events, "--campaigns", files.campaigns, "--locales", "Locales"]
        let replayRuns = try (0..<runs).map { _ in try Spawn.run(replayArgs) }
        let replay = replayRuns.min { $0.seconds < $1.seconds }!
        let replayCPU = replayRuns.map(\.cpuSeconds).min()!
        guard replay.status == 0 else { throw ValidationError("replay exited \(replay.status)") }
        // The same command on no events: starting up and loading the campaigns, paid once per run.
        let emptyArgs = pin + [binary, "replay", "/dev/null", "--campaigns", files.campaigns, "--locales", "Locales"]
        let startup = try (0..<runs).map { _ in try Spawn.run(emptyArgs) }.map(\.seconds).min()!
        var counts = Spawn.Counts()
        _ = try Spawn.run(replayArgs, stdout: .counted, counts: &counts)
        let records = counts.lines, recordBytes = counts.bytes

        // Memory is flat in the number of events: a tenth of the trace has the same peak.
        let tenth = try Workspace.head(files.events, lines: events / 10, to: work + "/tenth.jsonl")
        let small = try Spawn.run(pin + [binary, "replay", tenth, "--campaigns", files.campaigns, "--locales", "Locales"])

        // In a child of its own, so that nothing this process allocated before blurs the figure.
        let stateRun = try Spawn.run([CommandLine.arguments[0], "--measure-state"], stdoutPath: work + "/state-size")
        let state = stateRun.status == 0 ? Double((try? String(contentsOfFile: work + "/state-size", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? .nan : .nan

        // Last: it allocates a lot in this process.
        let load = try Workspace.measureLoad(spec: WorkloadSpec(campaigns: loadCampaigns, events: 0, devices: 1), folder: work)

        let eventsPerSecond = Double(events) / replay.seconds
        let wcLinesPerSecond = Double(events) / wc.seconds
        print("")
        print("| measure | value |")
        print("| --- | --- |")
        print("| replay, end to end (file in, records to /dev/null) | \(Report.rate(eventsPerSecond)) events/s, \(String(format: "%.0f", eventBytes / replay.seconds / 1e6)) MB/s in, \(String(format: "%.3f", replay.seconds)) s |")
        print("| `wc -l` on the same file | \(Report.rate(wcLinesPerSecond)) lines/s, \(String(format: "%.0f", eventBytes / wc.seconds / 1e6)) MB/s |")
        print("| replay / `wc -l` | 1 : \(String(format: "%.1f", wcLinesPerSecond / eventsPerSecond)) |")
        print("| the events alone (end to end less the \(String(format: "%.3f", startup)) s of starting and loading the campaigns) | \(Report.rate(Double(events) / max(replay.seconds - startup, 1e-3))) events/s |")
        print("| the same on CPU time (user + sys, best run) | replay \(Report.rate(Double(events) / replayCPU)) events/s, `wc -l` \(Report.rate(Double(events) / max(wcCPU, 1e-3))) lines/s, 1 : \(String(format: "%.1f", replayCPU / max(wcCPU, 1e-3))) |")
        print("| records | \(records) (\(String(format: "%.2f", Double(records) / Double(max(1, events)))) per event), \(Report.rate(Double(records) / replay.seconds)) records/s, \(String(format: "%.0f", Double(recordBytes) / replay.seconds / 1e6)) MB/s out |")
        print("| peak RSS, whole trace / a tenth of it | \(replay.maxRSSKiB / 1024) MiB / \(small.maxRSSKiB / 1024) MiB |")
        print("| loading \(loadCampaigns) campaigns from 10 files (read, parse, decode, index) | \(String(format: "%.3f", load.seconds)) s (\(String(format: "%.1f", load.megabytes)) MB of JSON; read, parse and decode \(String(format: "%.3f", load.decode)) s, index \(String(format: "%.3f", load.seconds - load.decode)) s) |")
        print("| suppression state per (device, campaign) entry | \(String(format: "%.1f", state)) bytes (1,000,000 entries) |")
    }
}

enum Report {
    static func rate(_ value: Double) -> String {
        value >= 1e6 ? String(format: "%.2f M", value / 1e6) : String(format: "%.0f k", value / 1e3)
    }
}
