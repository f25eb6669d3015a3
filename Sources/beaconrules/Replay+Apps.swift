import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import BeaconRulesService
import CoreMetrics
import Foundation
import Logging
import Synchronization

/// `replay --apps FILE`: every line names its app by its `app` field (`LineApps`, the rule of
/// `serve --apps` too; docs/replay.md, "Apps"), and goes through that app's own service: its
/// campaigns, locales and state (in memory, or the app's rows in the one `--state`), so the same
/// event id in two apps is two events. Records come out in input order; a line without an
/// `app`, or with one the file does not have, is rejected like any other bad line.
extension Replay {
    func replayApps(file: String, sources: [String]) throws {
        let apps = try AppsLoading.load(
            file: file, catalog: catalog, state: stateOptions, presence: presenceOptions, retention: retentionOptions,
            logger: Logger(label: "beaconrules.replay") { _ in SwiftLogNoOpLogHandler() }, metrics: NOOPMetricsHandler.instance)
        var inputs: [(name: String, text: String)] = []
        for source in sources {
            let data = source == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: source)
            guard let data else {
                StandardError.write("beaconrules: \(source): cannot open the events file\n")
                throw ExitCode(2)
            }
            inputs.append((source == "-" ? "stdin" : source, String(decoding: data, as: UTF8.self)))
        }
        let read = inputs
        let rejected = try Self.waiting { try await AppsReplay(apps: apps).replay(read) }
        try finish(ReplayOutcome(), rejected: rejected)
    }

    /// Runs `work` on the cooperative pool and waits for it here (replay is a synchronous command;
    /// the services' calls run on their own threads).
    static func waiting<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}

/// The lines of several sources through the apps they name, each run of one app's consecutive
/// lines in one call of its service (numbered as in the source, so that a line without an `id` is
/// `SOURCE:LINE`, as in every replay).
struct AppsReplay: Sendable {
    let apps: RulesApps
    /// The most lines handed to a service in one call.
    static let runLength = 4096

    /// The number of lines rejected.
    func replay(_ inputs: [(name: String, text: String)]) async throws -> Int {
        let stdout = OutputSink(fd: 1)
        let lineApps = LineApps(ids: apps.apps.map(\.definition.id))
        var rejected = 0
        for input in inputs {
            // The service's own intake (`process(lines:)`): each line is read here, once, with its app.
            let intake = LineIntake(source: input.name, linesWithoutID: .knownByPlace)
            var run: (app: RulesApps.App, first: Int, lines: [ReadLine])?
            func flush() async throws {
                guard let pending = run else { return }
                run = nil
                let outcomes = try await pending.app.rules.process(read: pending.lines, firstLine: pending.first)
                var out: [UInt8] = []
                for outcome in outcomes {
                    switch outcome {
                    case .accepted(_, let records):
                        for record in records { out += Array(record.json.utf8); out.append(0x0A) }
                    case .rejected(let refusal):
                        rejected += 1
                        StandardError.write(ErrorLine.json(kind: "error", source: input.name, line: refusal.line, message: refusal.message))
                    }
                }
                if !out.isEmpty { _ = stdout.write(out) }
            }
            var lines = input.text.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" { lines.removeLast() }
            for (index, line) in lines.enumerated() {
                let number = index + 1
                if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
                    try await flush()
                    continue
                }
                let app: RulesApps.App
                let read: ReadLine
                switch lineApps.read(line, number: number, intake: intake) {
                case .success(let named):
                    app = apps.apps[named.app]
                    read = named.line
                case .failure(let refusal):
                    try await flush()
                    rejected += 1
                    StandardError.write(ErrorLine.json(kind: "error", source: input.name, line: number, message: refusal.message))
                    continue
                }
                if let pending = run, pending.app.definition.id != app.definition.id || pending.lines.count >= Self.runLength {
                    try await flush()
                }
                if run == nil { run = (app, number, []) }
                run?.lines.append(read)
            }
            try await flush()
        }
        return rejected
    }
}
