import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import BeaconRulesServer
import BeaconRulesStore
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `beaconrules replay`: events in (files or stdin), records out, one JSON error per rejected line.
struct Replay: MainThreadCommand {
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

    @OptionGroup var retentionOptions: RetentionOptions

    @OptionGroup var stateOptions: StateOptions

    @Option(name: .customLong("format"), help: ArgumentHelp("`records` (SPEC section 3) or `apns` (the APNs payload a push provider sends).", valueName: "format"))
    var format: OutputFormat = .records

    @Flag(name: .customLong("no-responses"), help: ArgumentHelp("The events come with no response lines: delivered notifications are not remembered for responses (nor saved with --state), so memory does not grow with the records; a response line is an error."))
    var noResponses = false

    @Option(name: .customLong("apps"), help: ArgumentHelp("Replay for the apps of this JSON file (docs/http.md \"Apps\"): every line names its app by its `app` field, and is decided by that app's campaigns, locales and state (in memory).", valueName: "file"))
    var apps: String?

    @Option(name: .customLong("jobs"), help: ArgumentHelp("Engines to share the events out to by device, each on a core (default: the cores replay may run on). Records come out in input order, the same as with --jobs 1. With --state, the presence layer or recorded scans, replay takes one job.", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let jobs, !(1...ShardedReplay.mostJobs).contains(jobs) {
            throw ValidationError("--jobs \(jobs): expected a number of engines from 1 to \(ShardedReplay.mostJobs)")
        }
    }

    func runOnMain() async throws {
        signal(SIGPIPE, SIG_IGN)
        let sources = eventFiles.isEmpty ? ["-"] : eventFiles
        for source in sources where source != "-" {
            guard FileManager.default.isReadableFile(atPath: source) else {
                StandardError.write("beaconrules: \(source): cannot open the events file\n")
                throw ExitCode(2)
            }
        }
        if let apps {
            try replayApps(file: apps, sources: sources)
            return
        }
        let (campaigns, locales) = try catalog.load { warning in
            StandardError.write(ErrorLine.json(kind: "warning", source: warning.location.file, line: warning.location.line, message: warning.message))
        }
        let settings = try presenceOptions.settings(campaigns: campaigns)
        let refusal = noResponses
            ? "a response line, but replay was given --no-responses: expected only events (delivered notifications are not remembered, so there is nothing to answer)"
            : nil
        let jobs = jobs(settings: settings, sources: sources)
        if jobs > 1 {
            // Where stdin stands, to read it again from there should a sighting come.
            let stdinStart = sources.contains("-") ? lseek(0, 0, SEEK_CUR) : -1
            let outcome = ShardedReplay(jobs: jobs, sources: sources, campaigns: campaigns, locales: locales, settings: settings, format: format, refusal: refusal, retention: retentionOptions.retention).run()
            guard let resume = outcome.oneJobFrom, outcome.failure == nil else {
                try finish(Outcome(failure: outcome.failure), rejected: outcome.rejectedLines)
                return
            }
            // A sighting: the presence layer's clock spans devices, so one engine takes over from
            // that line. It applies the lines before it again, writing nothing (their records and
            // errors are out), to hold every device's state as `--jobs 1` would there.
            if stdinStart >= 0 { lseek(0, stdinStart, SEEK_SET) }
            try replayInMemory(sources, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal, writingFrom: resume, rejectedBefore: outcome.rejectedLines)
            return
        }
        switch try await stateOptions.open(logger: Logger(label: "beaconrules.replay")) {
        case .sqlite(let store): try replay(sources, state: store, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal)
        case .postgres(let store): try await replay(sources, database: store, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal)
        case nil: try replayInMemory(sources, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal)
        }
    }

    /// One engine, its state in memory. `writingFrom`: nothing is written (records, errors,
    /// warnings) before that source (index) and line, whose lines `--jobs N` has written already
    /// (`rejectedBefore` of them refused).
    func replayInMemory(
        _ sources: [String], campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?,
        writingFrom: (source: Int, line: Int)? = nil, rejectedBefore: Int = 0
    ) throws {
        // Nothing reads the records back before they are written out: record tails are
        // written from the engine's cache (writev) instead of being copied per record.
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), settings: settings),
            log: NoAnswerLog(), output: ReplayOutput(collectsReferences: true), format: format,
            logsPresenceInput: false, refusingResponses: refusal, retention: retentionOptions.retention)
        pipeline.output.muted = writingFrom != nil
        let outcome = replay(sources, through: pipeline, state: nil, writingFrom: writingFrom)
        keepUntilExit(pipeline)
        try finish(outcome, rejected: rejectedBefore + pipeline.output.rejectedLines)
    }

    /// A replay with `--state`: the store is the engine's suppression state and the answer log.
    func replay<State: SuppressionStore & StateLog>(
        _ sources: [String], state store: State, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?
    ) throws {
        defer { store.close() }
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), settings: settings),
            log: store, output: ReplayOutput(collectsReferences: false), format: format,
            logsPresenceInput: false, refusingResponses: refusal, retention: retentionOptions.retention)
        // With --no-responses the saved ledger is left where it is: nothing reads it.
        if !noResponses {
            do { try pipeline.loadLedger() } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        }
        let outcome = replay(sources, through: pipeline, state: store)
        keepUntilExit(pipeline)
        try finish(outcome, rejected: pipeline.output.rejectedLines)
    }

    /// How a replay ended: `failure` nil, every source read to its end.
    struct Outcome {
        var failure: String?
    }

    func finish(_ outcome: Outcome, rejected: Int) throws {
        if let failure = outcome.failure {
            StandardError.write("beaconrules: \(failure)\n")
            throw ExitCode(1)
        }
        if rejected > 0 { throw ExitCode(1) }
    }

    /// Every line of every source, in order, through `pipeline`; its records written in large blocks.
    ///
    /// With `state` (the pipeline's log and the engine's store), changes are committed in blocks
    /// and each block's records are written only after its commit, as `serve` answers only what
    /// is durable. An event with its own `id` is logged with its records: seen again (in this
    /// run or a later one), it is answered from the log and changes nothing. `SOURCE:LINE` ids
    /// name a position, not an event, so events without an `id` are not logged. Input that goes
    /// through the presence layer (sightings; given events under flicker control) yields records
    /// later, at event time, and is not logged per event.
    func replay<Store: SuppressionStore, Log: AnswerLog>(
        _ sources: [String], through pipeline: LinePipeline<Store, Log, ReplayOutput>, state: (any StateLog)?,
        writingFrom: (source: Int, line: Int)? = nil
    ) -> Outcome {
        var outcome = Outcome()
        let stdout = OutputSink(fd: 1)
        var linesInBlock = 0
        /// Commits the block (with state), then writes its records.
        func flush() throws {
            try pipeline.settle()
            if let state {
                try state.commit()
                try state.begin()
            }
            // The answer retention counts from when a block was applied, by the wall clock.
            pipeline.setWallClock(Self.wallClock())
            linesInBlock = 0
            if !pipeline.output.muted {
                guard stdout.write(pipeline.output.records) else { throw OutputClosed() }
            }
            pipeline.output.records.removeAll()
        }
        /// From here on, lines are written: those before are applied and their records dropped.
        func unmute() throws {
            try applyBatch()
            try flush()
            pipeline.output.muted = false
        }
        /// Applies the pipeline's batch, and ends the block when it is large enough.
        func applyBatch() throws {
            linesInBlock += pipeline.applyBatch()
            if pipeline.output.records.count >= ReplayLines.blockBytes || linesInBlock >= ReplayLines.blockLines { try flush() }
        }
        do { try state?.begin() } catch {
            outcome.failure = "cannot save the state: \(error)"
            return outcome
        }
        pipeline.setWallClock(Self.wallClock())
        defer { state?.rollback() }
        for (sourceIndex, source) in sources.enumerated() {
            let name = source == "-" ? "stdin" : source
            pipeline.output.source = name
            let intake = LineIntake.replay(source: name)
            if presenceOptions.inputFormat == .starksm64 {
                guard let items = recordedScan(source, name: name, outcome: &outcome) else { break }
                do {
                    for item in items {
                        switch item {
                        case .rejected(let message, let line): pipeline.appendRejected(message, line: line)
                        case .sighting(let sighting, let line): pipeline.append(.sighting(sighting, typeColumn: 0), line: line, identified: false)
                        }
                        if pipeline.isBatchFull { try applyBatch() }
                    }
                    try applyBatch()
                } catch is OutputClosed {
                    outcome.failure = "stdout was closed; stopped"
                    return outcome
                } catch {
                    outcome.failure = "cannot save the state: \(error)"
                    return outcome
                }
                continue
            }
            guard let fd = Self.openEvents(source, outcome: &outcome) else { break }
            defer { if fd != 0 { close(fd) } }
            var size: Int?
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { size = Int(info.st_size) }
            pipeline.output.progress = ProgressBar(totalBytes: size)
            var reader = LineReader(fd: fd)
            do {
                // Lines read before a read error are still applied, as they were read.
                var readError: ReadError?
                var reported = 0
                while let line = Self.nextLine(of: &reader, failing: &readError) {
                    let number = reader.lineNumber
                    if let writingFrom, pipeline.output.muted, sourceIndex == writingFrom.source, number >= writingFrom.line { try unmute() }
                    if reader.bytesRead != reported {
                        reported = reader.bytesRead
                        pipeline.output.progress.update(bytes: reported, lines: number)
                    }
                    if reader.lineWasTooLong {
                        pipeline.appendRejected(LineIntake.tooLongMessage(limit: LineReader.longestLine), line: number)
                    } else {
                        // A refused line is reported in its place among the batch's lines (their
                        // warnings come first).
                        pipeline.append(line, line: number, reading: intake)
                    }
                    if pipeline.isBatchFull { try applyBatch() }
                }
                try applyBatch()
                if let readError { throw readError }
            } catch is OutputClosed {
                outcome.failure = "stdout was closed; stopped"
                return outcome
            } catch let error as StoreError {
                outcome.failure = "cannot save the state: \(error)"
                return outcome
            } catch {
                outcome.failure = "\(name): read failed: \(error)"
                // The lines read before the error were applied: their records are committed and
                // written, as `--jobs N` writes them, before replay stops.
                _ = try? flush()
            }
            pipeline.output.progress.clear()
            if outcome.failure != nil { break }
        }
        if outcome.failure == nil {
            // Pending exits and dwells resolve as of the last event time plus exitTimeout.
            pipeline.finish()
            do { try flush() } catch is OutputClosed {
                outcome.failure = "stdout was closed"
            } catch {
                outcome.failure = "cannot save the state: \(error)"
            }
        }
        return outcome
    }

    struct OutputClosed: Error {}

    /// The reader's next line; nil at the end, or on a read error (then in `failure`).
    static func nextLine(of reader: inout LineReader, failing failure: inout ReadError?) -> UnsafeBufferPointer<UInt8>? {
        do { return try reader.nextLine() } catch {
            failure = error
            return nil
        }
    }

    /// The events file `source` opened for reading (`-`: stdin, 0); nil, with `outcome.failure`
    /// saying why, when it does not open.
    static func openEvents(_ source: String, outcome: inout Outcome) -> Int32? {
        let fd = source == "-" ? 0 : open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            outcome.failure = "\(source): cannot open: \(String(cString: strerror(errno)))"
            return nil
        }
        return fd
    }

    static func wallClock() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

}

/// Freeing a large campaign set and its state object by object costs a fifth of a short run, and
/// the process is about to end: this keeps `pipeline` alive so the OS reclaims it all at once.
/// A reference in a global: an object made only to be leaked was removed by the optimizer (and
/// the pipeline freed, 105 M instructions under callgrind).
func keepUntilExit(_ pipeline: AnyObject) {
    keptUntilExit.append(pipeline)
}

/// `nonisolated(unsafe)`: written once, by the command's one thread, just before it exits.
nonisolated(unsafe) private var keptUntilExit: [AnyObject] = []

