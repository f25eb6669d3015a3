import ArgumentParser
import BeaconRules
import BeaconRulesStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules replay`: events in (files or stdin), records out, one JSON error per rejected line.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay beacon events (JSON lines) and write notification records (JSON lines) to stdout.",
        discussion: """
            Exit status: 0 every line accepted; 1 finished, some lines rejected (one JSON error object \
            each on stderr); 2 bad usage, or campaigns/locales/state that do not load (nothing processed).
            """
    )

    @Argument(help: ArgumentHelp("Event files (JSON lines); none or `-` reads stdin.", valueName: "events"))
    var eventFiles: [String] = []

    @OptionGroup var catalog: CatalogOptions

    @OptionGroup var presenceOptions: PresenceOptions

    @Option(name: .customLong("state"), help: ArgumentHelp("Keep suppression state in this file across runs (default: in memory).", valueName: "file"))
    var stateFile: String?

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let sources = eventFiles.isEmpty ? ["-"] : eventFiles
        for source in sources where source != "-" {
            guard FileManager.default.isReadableFile(atPath: source) else {
                StandardError.write("beaconrules: \(source): cannot open the events file\n")
                throw ExitCode(2)
            }
        }
        let (campaigns, locales) = try catalog.load { warning in
            StandardError.write(ErrorLine.json(kind: "warning", source: warning.location.file, line: warning.location.line, message: warning.message))
        }
        let settings = try presenceOptions.settings(campaigns: campaigns)
        if let stateFile {
            let store: FileSuppressionStore
            do { store = try FileSuppressionStore(path: stateFile) } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            var engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), settings: settings)
            let outcome = replay(sources, engine: &engine)
            keepUntilExit(engine)
            do { try engine.engine.store.save() } catch {
                StandardError.write("beaconrules: cannot save the state: \(error)\n")
                throw ExitCode(1)
            }
            try finish(outcome)
        } else {
            var engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), settings: settings)
            let outcome = replay(sources, engine: &engine)
            keepUntilExit(engine)
            try finish(outcome)
        }
    }

    struct Outcome {
        var rejected = 0
        var failure: String?
    }

    func finish(_ outcome: Outcome) throws {
        if let failure = outcome.failure {
            StandardError.write("beaconrules: \(failure)\n")
            throw ExitCode(1)
        }
        if outcome.rejected > 0 { throw ExitCode(1) }
    }

    /// The main loop: every line of every source, in order; records buffered and written in large blocks.
    func replay<Store: SuppressionStore>(_ sources: [String], engine: inout PresenceEngine<Store>) -> Outcome {
        var outcome = Outcome()
        let stdout = OutputSink(fd: 1)
        var writer = JSONWriter(capacity: 1 << 17)
        defer {
            // Pending exits and dwells resolve as of the last event time plus exitTimeout.
            if outcome.failure == nil {
                engine.finish(into: &writer)
                if !writer.bytes.isEmpty, !stdout.write(writer.bytes) { outcome.failure = "stdout was closed" }
            }
        }
        for source in sources {
            let name = source == "-" ? "stdin" : source
            if presenceOptions.inputFormat == .starksm64 {
                if !replayRecordedScans(source, name: name, engine: &engine, writer: &writer, outcome: &outcome, stdout: stdout) { return outcome }
                continue
            }
            let fd = source == "-" ? 0 : open(source, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                outcome.failure = "\(source): cannot open: \(String(cString: strerror(errno)))"
                break
            }
            defer { if fd != 0 { close(fd) } }
            var size: Int?
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { size = Int(info.st_size) }
            var progress = ProgressBar(totalBytes: size)
            var reader = LineReader(fd: fd)
            var lines = 0
            do {
                try reader.forEachLine({ line, number in
                    lines = number
                    do {
                        try engine.replay(line: line, fallbackID: "\(name):\(number)", into: &writer)
                        if writer.bytes.count >= 1 << 16 {
                            guard stdout.write(writer.bytes) else { throw OutputClosed() }
                            writer.bytes.removeAll(keepingCapacity: true)
                        }
                    } catch let error as EventError {
                        outcome.rejected += 1
                        progress.clear()
                        StandardError.write(ErrorLine.json(kind: "error", source: name, line: number, message: error.description))
                    }
                }, onChunk: { bytes in progress.update(bytes: bytes, lines: lines) })
            } catch is OutputClosed {
                outcome.failure = "stdout was closed; stopped"
                return outcome
            } catch {
                outcome.failure = "\(name): read failed: \(error)"
            }
            progress.clear()
            if outcome.failure != nil { break }
        }
        if !writer.bytes.isEmpty, !stdout.write(writer.bytes) { outcome.failure = "stdout was closed" }
        writer.bytes.removeAll(keepingCapacity: true)
        return outcome
    }

    /// A recorded scan file (`--input-format starksm64`): every object a sighting, the scanner the
    /// device. Errors name the line the object starts on. False when stdout was closed.
    func replayRecordedScans<Store: SuppressionStore>(
        _ source: String, name: String, engine: inout PresenceEngine<Store>, writer: inout JSONWriter,
        outcome: inout Outcome, stdout: OutputSink
    ) -> Bool {
        let bytes: [UInt8]
        do { bytes = try CompressedFile.read(source) } catch {
            outcome.failure = error.description
            return false
        }
        var closed = false
        bytes.withUnsafeBufferPointer { buffer in
            RecordedScans.forEachObject(in: buffer) { object, line in
                if closed { return }
                do {
                    switch RecordedScans.item(object, fallbackID: "\(name):\(line)") {
                    case .heartbeat: return
                    case .rejected(let error): throw error
                    case .sighting(let sighting): try engine.add(.sighting(sighting, typeColumn: 0), into: &writer)
                    }
                } catch {
                    outcome.rejected += 1
                    StandardError.write(ErrorLine.json(kind: "error", source: name, line: line, message: "\(error)"))
                }
                if writer.bytes.count >= 1 << 16 {
                    if !stdout.write(writer.bytes) { closed = true; outcome.failure = "stdout was closed; stopped" }
                    writer.bytes.removeAll(keepingCapacity: true)
                }
            }
        }
        return !closed
    }

    struct OutputClosed: Error {}
}

/// Freeing a large campaign set and its state object by object costs a fifth of a short run, and
/// the process is about to end: this keeps `value` alive so the OS reclaims it all at once.
func keepUntilExit<T>(_ value: T) {
    _ = Unmanaged.passRetained(ExitRetained(value))
}

final class ExitRetained<T> {
    let value: T
    init(_ value: T) { self.value = value }
}

/// `{"kind":"error","source":...,"line":N,"message":...}` lines for stderr.
enum ErrorLine {
    static func json(kind: String, source: String, line: Int, message: String) -> String {
        var w = JSONWriter(capacity: 128)
        w.raw("{\"kind\":"); w.string(kind)
        w.raw(",\"source\":"); w.string(source)
        w.raw(",\"line\":"); w.integer(Int64(line))
        w.raw(",\"message\":"); w.string(message)
        w.raw("}\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
