import ArgumentParser
import BeaconRules
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `replay --state postgres://...`: the lines read as by `replay --state FILE`, each batch one
/// transaction on the database, *prepare async, decide sync, commit async*
/// (`PostgresStateStore.transaction`); its records and errors written once it has committed.
/// The lines of a batch are kept as read, to be appended again should the transaction run
/// twice (it read a device no line named: the presence layer's clock).
extension Replay {
    nonisolated(nonsending) func replay(
        _ sources: [String], database store: PostgresStateStore, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings, refusal: String?
    ) async throws {
        defer { store.close() }
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: store), settings: settings),
            log: store, output: ReplayOutput(collectsReferences: false), format: format,
            logsPresenceInput: false, refusingResponses: refusal, retention: retentionOptions.retention)
        pipeline.output.held = []
        if !noResponses {
            do { try pipeline.loadLedger() } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        }
        let batches = DatabaseBatches(pipeline: pipeline, store: store)
        let outcome = await replay(sources, into: batches)
        keepUntilExit(pipeline)
        try finish(outcome, rejected: pipeline.output.rejectedLines)
    }

    /// Every line of every source, in order, a batch at a time into `batches`.
    nonisolated(nonsending) private func replay(_ sources: [String], into batches: DatabaseBatches) async -> Outcome {
        var outcome = Outcome()
        do {
            for source in sources {
                let name = source == "-" ? "stdin" : source
                batches.start(source: name)
                if presenceOptions.inputFormat == .starksm64 {
                    guard let items = recordedScan(source, name: name, outcome: &outcome) else { break }
                    for item in items {
                        switch item {
                        case .rejected(let message, let line): batches.add(.rejected(message, line: line))
                        case .sighting(let sighting, let line): batches.add(.sighting(sighting, line: line))
                        }
                        if batches.isFull { try await batches.commit() }
                    }
                    try await batches.commit()
                    continue
                }
                guard let fd = Self.openEvents(source, outcome: &outcome) else { break }
                defer { if fd != 0 { close(fd) } }
                var reader = LineReader(fd: fd)
                var readError: ReadError?
                while let line = Self.nextLine(of: &reader, failing: &readError) {
                    if reader.lineWasTooLong {
                        batches.add(.rejected(LineIntake.tooLongMessage(limit: LineReader.longestLine), line: reader.lineNumber))
                    } else {
                        batches.add(.bytes(Array(line), line: reader.lineNumber))
                    }
                    if batches.isFull { try await batches.commit() }
                }
                // Lines read before a read error are applied and written, as they were read.
                try await batches.commit()
                if let readError {
                    outcome.failure = "\(name): read failed: \(readError)"
                    break
                }
            }
            // Pending exits and dwells resolve as of the last event time plus exitTimeout.
            if outcome.failure == nil { try await batches.commit(finishing: true) }
        } catch is OutputClosed {
            outcome.failure = "stdout was closed; stopped"
        } catch {
            outcome.failure = "cannot save the state: \(error)"
        }
        return outcome
    }
}

/// `replay`'s batches on the database: each one's lines as read (to be appended again should
/// its transaction run twice), then applied, committed and written.
///
/// Not `Sendable`: the command's task makes every call.
final class DatabaseBatches {
    /// A line of the batch as read.
    enum Kept {
        case bytes([UInt8], line: Int)
        case sighting(Sighting, line: Int)
        case rejected(String, line: Int)
    }

    private let pipeline: LinePipeline<PostgresStateStore, PostgresStateStore, ReplayOutput>
    private let store: PostgresStateStore
    private var intake = LineIntake.replay(source: "stdin")
    private var kept: [Kept] = []
    private let stdout = OutputSink(fd: 1)

    init(pipeline: LinePipeline<PostgresStateStore, PostgresStateStore, ReplayOutput>, store: PostgresStateStore) {
        self.pipeline = pipeline
        self.store = store
    }

    /// The lines from now on come from `name`.
    func start(source name: String) {
        pipeline.output.source = name
        intake = LineIntake.replay(source: name)
    }

    /// The batch is full: commit it.
    var isFull: Bool { pipeline.isBatchFull }

    /// Appends a line to the batch (and keeps it).
    func add(_ line: Kept) {
        kept.append(line)
        append(line)
    }

    private func append(_ line: Kept) {
        switch line {
        case .bytes(let bytes, let number):
            bytes.withUnsafeBufferPointer { pipeline.append($0, line: number, reading: intake) }
        case .sighting(let sighting, let number):
            pipeline.append(.sighting(sighting, typeColumn: 0), line: number, identified: false)
        case .rejected(let message, let number):
            pipeline.appendRejected(message, line: number)
        }
    }

    /// Applies the batch in one transaction (with `finishing`, the presence layer resolved at
    /// the end of input too), commits, then writes its errors and records.
    nonisolated(nonsending) func commit(finishing: Bool = false) async throws {
        let reads = pipeline.batchReads()
        let checkpoint = pipeline.checkpoint()
        let rejected = pipeline.output.rejectedLines
        let now = Replay.wallClock()
        var again = false
        try await store.transaction(reading: reads, { () throws in
            if again { for line in kept { append(line) } }
            again = true
            pipeline.setWallClock(now)
            pipeline.applyBatch()
            if finishing { pipeline.finish() }
            try pipeline.settle()
        }, retry: {
            pipeline.restore(checkpoint)
            pipeline.output.records.removeAll()
            pipeline.output.held = []
            pipeline.output.rejectedLines = rejected
        })
        kept.removeAll(keepingCapacity: true)
        for message in pipeline.output.held ?? [] { StandardError.write(message) }
        pipeline.output.held = []
        guard stdout.write(pipeline.output.records) else { throw Replay.OutputClosed() }
        pipeline.output.records.removeAll()
    }
}
