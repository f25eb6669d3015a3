package import BeaconRules
#if canImport(Glibc)
import Glibc
#endif

/// A shared database a replay's batches run on, each one transaction that may run twice: the
/// PostgreSQL state (`PostgresStateStore.transaction`, *prepare async, decide sync, commit
/// async*). `attempt` runs with everything `reads` names read and locked; when it read something
/// more (the presence layer's clock reaching another device), `retry` takes its changes back and
/// the transaction runs again with that locked too. The command declares the conformance.
package protocol ReplayDatabase: AnyObject {
    nonisolated(nonsending) func transaction<T>(
        reading reads: TransactionReads, _ attempt: () throws -> T, retry: () -> Void
    ) async throws -> T
}

/// `replay --state postgres://...`: the lines read as by `OneEngineReplay` with a state file,
/// each batch one transaction on the database, its records and errors written once it has
/// committed. The lines of a batch are kept as read, to be appended again should the
/// transaction run twice.
///
/// Not `Sendable`: the command's task makes every call.
package final class DatabaseReplay<Database: SuppressionStore & AnswerLog & ReplayDatabase> {
    /// A line of the batch as read.
    enum Kept {
        case bytes([UInt8], line: Int)
        case sighting(Sighting, line: Int)
        case rejected(String, line: Int)
    }

    private let sources: [String]
    private let input: ReplayInput
    private let pipeline: LinePipeline<Database, Database, ReplayOutput>
    private let database: Database
    private var intake = LineIntake.replay(source: "stdin")
    private var kept: [Kept] = []
    private let stdout = OutputSink(fd: 1)

    /// A replay of `sources` through `pipeline`, whose store and log are `database`. Errors are
    /// held (`output.held`) until their batch commits.
    package init(sources: [String], input: ReplayInput, pipeline: LinePipeline<Database, Database, ReplayOutput>, database: Database) {
        self.sources = sources
        self.input = input
        self.pipeline = pipeline
        self.database = database
        pipeline.output.held = []
    }

    /// Every line of every source, in order, a batch at a time.
    nonisolated(nonsending) package func run() async -> ReplayOutcome {
        var outcome = ReplayOutcome()
        do {
            for source in sources {
                let name = source == "-" ? "stdin" : source
                start(source: name)
                if input == .recordedScans {
                    guard let items = ReplaySources.recordedScan(source, name: name, outcome: &outcome) else { break }
                    for item in items {
                        switch item {
                        case .rejected(let message, let line): add(.rejected(message, line: line))
                        case .sighting(let sighting, let line): add(.sighting(sighting, line: line))
                        }
                        if pipeline.isBatchFull { try await commit() }
                    }
                    try await commit()
                    continue
                }
                guard let fd = ReplaySources.open(source, outcome: &outcome) else { break }
                defer { if fd != 0 { close(fd) } }
                var reader = LineReader(fd: fd)
                var readError: ReadError?
                while let line = ReplaySources.nextLine(of: &reader, failing: &readError) {
                    if reader.lineWasTooLong {
                        add(.rejected(LineIntake.tooLongMessage(limit: LineReader.longestLine), line: reader.lineNumber))
                    } else {
                        add(.bytes(Array(line), line: reader.lineNumber))
                    }
                    if pipeline.isBatchFull { try await commit() }
                }
                // Lines read before a read error are applied and written, as they were read.
                try await commit()
                if let readError {
                    outcome.failure = "\(name): read failed: \(readError)"
                    break
                }
            }
            // Pending exits and dwells resolve as of the last event time plus exitTimeout.
            if outcome.failure == nil { try await commit(finishing: true) }
        } catch is OutputClosed {
            outcome.failure = "stdout was closed; stopped"
        } catch {
            outcome.failure = "cannot save the state: \(error)"
        }
        return outcome
    }

    /// The lines from now on come from `name`.
    private func start(source name: String) {
        pipeline.output.source = name
        intake = LineIntake.replay(source: name)
    }

    /// Appends a line to the batch (and keeps it).
    private func add(_ line: Kept) {
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
    nonisolated(nonsending) private func commit(finishing: Bool = false) async throws {
        let reads = pipeline.batchReads()
        let checkpoint = pipeline.checkpoint()
        let rejected = pipeline.output.rejectedLines
        let now = ReplaySources.wallClock()
        var again = false
        try await database.transaction(reading: reads, { () throws in
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
        guard stdout.write(pipeline.output.records) else { throw OutputClosed() }
        pipeline.output.records.removeAll()
    }
}
