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

    @Option(name: .customLong("state"), help: ArgumentHelp("Keep suppression state and answered event ids in this SQLite file across runs, shared with `serve` (default: in memory).", valueName: "file"))
    var stateFile: String?

    @Option(name: .customLong("format"), help: ArgumentHelp("`records` (SPEC section 3) or `apns` (the APNs payload a push provider sends).", valueName: "format"))
    var format: OutputFormat = .records

    @Flag(name: .customLong("no-responses"), help: ArgumentHelp("The events come with no response lines: delivered notifications are not remembered for responses (nor saved with --state), so memory does not grow with the records; a response line is an error."))
    var noResponses = false

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
            let store: SQLiteStateStore
            do { store = try SQLiteStateStore(path: stateFile) } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            defer { store.close() }
            var rules = RulesEngine(campaigns: campaigns, locales: locales, store: store)
            do {
                // With --no-responses the saved ledger is left where it is: nothing reads it.
                if !noResponses {
                    rules.ledger = try store.loadLedger()
                    rules.ledger.recordsChanges = true
                }
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            var engine = PresenceEngine(engine: rules, settings: settings)
            let outcome = replay(sources, engine: &engine, state: store)
            keepUntilExit(engine)
            try finish(outcome)
        } else {
            var engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), settings: settings)
            let outcome = replay(sources, engine: &engine, state: nil)
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
    ///
    /// With `state` (the engine's own store), changes are committed in batches and each batch's
    /// records are written only after its commit, as `serve` answers only what is durable. An event
    /// with its own `id` is logged with its records: seen again (in this run or a later one), it is
    /// answered from the log and changes nothing. `SOURCE:LINE` ids name a position, not an event,
    /// so events without an `id` are not logged. Input that goes through the presence layer
    /// (sightings; given events under flicker control) yields records later, at event time, and
    /// is not logged per event.
    func replay<Store: SuppressionStore>(_ sources: [String], engine: inout PresenceEngine<Store>, state: SQLiteStateStore?) -> Outcome {
        if noResponses { engine.engine.ledger.isEnabled = false }
        var outcome = Outcome()
        let stdout = OutputSink(fd: 1)
        var writer = JSONWriter(capacity: Self.batchBytes + (1 << 16))
        // Without state, nothing reads the records back before they are written out: record
        // tails are written from the engine's cache (writev) instead of being copied per record.
        writer.collectsReferences = state == nil
        var eventsInBatch = 0
        /// Commits the batch (with state), then writes its records.
        func flush() throws {
            if let state {
                try state.saveLedger(engine.engine.ledger.takeChanges())
                try state.commit()
                try state.begin()
            }
            eventsInBatch = 0
            guard stdout.write(writer) else { throw OutputClosed() }
            writer.removeAll()
        }
        do { try state?.begin() } catch {
            outcome.failure = "cannot save the state: \(error)"
            return outcome
        }
        defer { state?.rollback() }
        let direct = !engine.settings.flickerControl
        for source in sources {
            let name = source == "-" ? "stdin" : source
            if presenceOptions.inputFormat == .starksm64 {
                guard let items = recordedScan(source, name: name, outcome: &outcome) else { break }
                do {
                    for item in items {
                        switch item {
                        case .rejected(let message, let line):
                            outcome.rejected += 1
                            StandardError.write(ErrorLine.json(kind: "error", source: name, line: line, message: message))
                        case .sighting(let sighting, let line):
                            do { try engine.add(.sighting(sighting, typeColumn: 0), into: &writer) } catch {
                                outcome.rejected += 1
                                StandardError.write(ErrorLine.json(kind: "error", source: name, line: line, message: error.description))
                            }
                            if writer.count >= Self.batchBytes { try flush() }
                        }
                    }
                } catch is OutputClosed {
                    outcome.failure = "stdout was closed; stopped"
                    return outcome
                } catch {
                    outcome.failure = "cannot save the state: \(error)"
                    return outcome
                }
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
            /// Lines parsed but not applied yet: applied in order a batch at a time, after the
            /// engine has prefetched what the batch's events will read (`RulesEngine.prefetch`).
            /// The batch's beacon events are in `events`, in order, read in place (no `String`
            /// per field) for the prefetch and the rules to read.
            let batchSize = RulesEngine<Store>.prefetchBatchSize
            var queued: [QueuedLine] = []
            queued.reserveCapacity(batchSize)
            var events = InPlaceEventBatch()
            /// Any line but a beacon event on the hot path (`replay` records without `--state`).
            func apply(_ input: InputLine, number: Int, positionalID: Bool) throws {
                let start = writer.bytes.count
                switch input {
                case .beacon where !direct, .sighting:
                    // Sightings, and given events under flicker control: to the presence layer.
                    if let presenceInput = input.presenceInput { try engine.add(presenceInput, into: &writer) }
                case .response where noResponses:
                    throw EventError("a response line, but replay was given --no-responses: expected only events (delivered notifications are not remembered, so there is nothing to answer)")
                case .response, .beacon:
                    // Straight to the rules (and the answer log): responses always, given
                    // events unless flicker control holds them for the presence layer.
                    if let state, !positionalID, let answered = state.answer(event: input.id) {
                        writer.bytes.append(contentsOf: answered)
                    } else {
                        let unhandled = try engine.engine.apply(input, format: format, into: &writer)
                        if let unhandled {
                            StandardError.write(ErrorLine.json(kind: "warning", source: name, line: number, message: "click on \"\(unhandled.actionId)\" of record \"\(unhandled.notification)\" runs action type \"\(unhandled.kind)\", which has no handler; counted as unhandled (see `beaconrules report`)"))
                        }
                        if let state, !positionalID { state.remember(event: input.id, records: Array(writer.bytes[start...])) }
                    }
                }
            }
            let hotPath = direct && format == .records && state == nil
            func applyQueued() throws {
                if queued.isEmpty { return }
                if direct { engine.engine.prefetch(events) }
                for q in queued.indices {
                    let line = queued[q]
                    do {
                        switch line.outcome {
                        case .event(let i):
                            if hotPath {
                                engine.engine.write(events, at: i, into: &writer)
                            } else {
                                try apply(.beacon(events[i].event), number: line.number, positionalID: line.positionalID)
                            }
                        case .other(let input): try apply(input, number: line.number, positionalID: line.positionalID)
                        case .rejected(let error): throw error
                        }
                        eventsInBatch += 1
                        if writer.count >= Self.batchBytes || eventsInBatch >= Self.batchEvents { try flush() }
                    } catch let error as EventError {
                        outcome.rejected += 1
                        progress.clear()
                        StandardError.write(ErrorLine.json(kind: "error", source: name, line: line.number, message: error.description))
                    }
                }
                queued.removeAll(keepingCapacity: true)
                events.removeAll()
            }
            do {
                // Lines read before a read error are still applied, as they were read.
                var readError: ReadError?
                var reported = 0
                while true {
                    let line: UnsafeBufferPointer<UInt8>
                    do {
                        guard let next = try reader.nextLine() else { break }
                        line = next
                    } catch {
                        readError = error
                        break
                    }
                    let number = reader.lineNumber
                    if reader.bytesRead != reported {
                        reported = reader.bytesRead
                        progress.update(bytes: reported, lines: number)
                    }
                    if reader.lineWasTooLong {
                        let error = EventError("line longer than \(LineReader.longestLine) bytes; skipped up to its newline")
                        queued.append(QueuedLine(outcome: .rejected(error), number: number, positionalID: false))
                    } else if EventParser.isBlank(line) {
                        continue
                    } else if events.appendUsualLayout(line) {
                        // The usual layout always has an `id`.
                        queued.append(QueuedLine(outcome: .event(events.count - 1), number: number, positionalID: false))
                    } else {
                        do {
                            let (input, positionalID) = try Self.parse(line, source: name, number: number)
                            if case .beacon(let event) = input {
                                queued.append(QueuedLine(outcome: .event(events.count), number: number, positionalID: positionalID))
                                events.append(event)
                            } else {
                                queued.append(QueuedLine(outcome: .other(input), number: number, positionalID: positionalID))
                            }
                        } catch {
                            // Reported in its place among the batch's lines (their warnings come first).
                            queued.append(QueuedLine(outcome: .rejected(error), number: number, positionalID: false))
                        }
                    }
                    // Applied early when its lines are long, so that memory stays flat (a batch
                    // holds at most 2 GiB of them: lines of at most 16 MiB keep it far below).
                    if queued.count == batchSize || events.byteCount >= 1 << 26 { try applyQueued() }
                }
                try applyQueued()
                if let readError { throw readError }
            } catch is OutputClosed {
                outcome.failure = "stdout was closed; stopped"
                return outcome
            } catch let error as StoreError {
                outcome.failure = "cannot save the state: \(error)"
                return outcome
            } catch {
                outcome.failure = "\(name): read failed: \(error)"
            }
            progress.clear()
            if outcome.failure != nil { break }
        }
        if outcome.failure == nil {
            // Pending exits and dwells resolve as of the last event time plus exitTimeout.
            engine.finish(into: &writer)
            do { try flush() } catch is OutputClosed {
                outcome.failure = "stdout was closed"
            } catch {
                outcome.failure = "cannot save the state: \(error)"
            }
        }
        return outcome
    }

    /// A batch ends at this many bytes of records or this many events: large enough that the
    /// commit's fsync costs little per event, small enough to keep memory flat.
    static let batchBytes = 1 << 20
    static let batchEvents = 16384

    /// A parsed line waiting in a prefetch batch.
    struct QueuedLine {
        enum Outcome {
            /// A beacon event, at this index of the batch's events.
            case event(Int)
            case other(InputLine)
            case rejected(EventError)
        }
        var outcome: Outcome
        var number: Int
        /// The event had no `id` and is known by `SOURCE:LINE` (not logged in the answer log).
        var positionalID: Bool
    }

    struct OutputClosed: Error {}

    /// Any input line not in the usual layout (the batch has tried that already); `positionalID`:
    /// it had no `id` and is known by `SOURCE:LINE` (not logged).
    static func parse(_ line: UnsafeBufferPointer<UInt8>, source: String, number: Int) throws(EventError) -> (InputLine, positionalID: Bool) {
        var positionalID = false
        func fallbackID() -> String {
            positionalID = true
            return "\(source):\(number)"
        }
        let input = try EventParser.parseInputInGeneral(line: line, fallbackID: fallbackID())
        return (input, positionalID)
    }
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
