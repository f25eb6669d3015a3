import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import BeaconRulesPostgres
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

    @Option(name: .customLong("apps"), help: ArgumentHelp("Replay for the apps of this JSON file (docs/http.md \"Apps\"): every line names its app by its `app` field, and is decided by that app's campaigns, locales and state (in memory, or its rows in the one --state).", valueName: "file"))
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
        let perDevice = stateOptions.state == nil && !settings.flickerControl && input == .eventLines
        let jobs = ShardedReplay.jobs(asked: jobs, perDevice: perDevice, sources: sources)
        if jobs > 1 {
            // Where stdin stands, to read it again from there should a sighting come.
            let stdinStart = sources.contains("-") ? lseek(0, 0, SEEK_CUR) : -1
            let outcome = ShardedReplay(jobs: jobs, sources: sources, campaigns: campaigns, locales: locales, settings: settings, format: format, refusal: refusal, retention: retentionOptions.retention).run()
            guard let resume = outcome.oneJobFrom, outcome.failure == nil else {
                try finish(ReplayOutcome(failure: outcome.failure), rejected: outcome.rejectedLines)
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
        let outcome = OneEngineReplay(sources: sources, input: input).run(inMemory: pipeline, writingFrom: writingFrom)
        keepUntilExit(pipeline)
        try finish(outcome, rejected: rejectedBefore + pipeline.output.rejectedLines)
    }

    /// A replay with `--state FILE`: the store is the engine's suppression state and the answer log.
    func replay(_ sources: [String], state store: SQLiteStateStore, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?) throws {
        defer { store.close() }
        let pipeline = try pipeline(on: store, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal)
        let outcome = OneEngineReplay(sources: sources, input: input).run(stateFile: pipeline, state: store)
        keepUntilExit(pipeline)
        try finish(outcome, rejected: pipeline.output.rejectedLines)
    }

    /// `replay --state postgres://...`: each batch one transaction on the database (`DatabaseReplay`).
    nonisolated(nonsending) func replay(
        _ sources: [String], database store: PostgresStateStore, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?
    ) async throws {
        defer { store.close() }
        let pipeline = try pipeline(on: store, campaigns: campaigns, locales: locales, settings: settings, refusal: refusal)
        let outcome = await DatabaseReplay(sources: sources, input: input, pipeline: pipeline, database: store).run()
        keepUntilExit(pipeline)
        try finish(outcome, rejected: pipeline.output.rejectedLines)
    }

    /// A pipeline whose suppression state and answer log are `store`, with the saved delivery
    /// ledger loaded for responses to what earlier runs delivered (with --no-responses it is left
    /// where it is: nothing reads it). Records are copied out, as the store may read them back.
    func pipeline<State: SuppressionStore & AnswerLog>(
        on store: State, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?
    ) throws -> LinePipeline<State, State, ReplayOutput> {
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), settings: settings),
            log: store, output: ReplayOutput(collectsReferences: false), format: format,
            logsPresenceInput: false, refusingResponses: refusal, retention: retentionOptions.retention)
        guard !noResponses else { return pipeline }
        do { try pipeline.loadLedger() } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        return pipeline
    }

    /// What the sources hold.
    var input: ReplayInput { presenceOptions.inputFormat == .starksm64 ? .recordedScans : .eventLines }

    /// Exit 1 when replay stopped early (saying why) or refused a line.
    func finish(_ outcome: ReplayOutcome, rejected: Int) throws {
        if let failure = outcome.failure {
            StandardError.write("beaconrules: \(failure)\n")
            throw ExitCode(1)
        }
        if rejected > 0 { throw ExitCode(1) }
    }
}

extension PostgresStateStore: ReplayDatabase {}
