package import BeaconRules
package import BeaconRulesStore
#if canImport(Glibc)
import Glibc
#endif

/// `replay` on one engine: every line of every source, in order, through one `LinePipeline`,
/// its records written in large blocks. In memory, or with `--state FILE`: then changes are committed a block at a time and each block's records are written only after
/// its commit, as `serve` answers only what is durable. `DatabaseReplay` is the same on
/// PostgreSQL; `ShardedReplay`, on several engines.
///
/// An event with its own `id` is logged with its records: seen again (in this run or a later
/// one), it is answered from the log and changes nothing. `SOURCE:LINE` ids name a position, not
/// an event, so events without an `id` are not logged. Input that goes through the presence
/// layer (sightings; given events under flicker control) yields records later, at event time,
/// and is not logged per event.
package struct OneEngineReplay {
    package let sources: [String]
    package let input: ReplayInput

    /// A replay of `sources` (paths; `-` is stdin).
    package init(sources: [String], input: ReplayInput) {
        self.sources = sources
        self.input = input
    }

    /// Runs the lines through `pipeline`, its state in memory. `writingFrom`: nothing is written
    /// (records, errors, warnings) before that source (index) and line, whose lines `--jobs N` has
    /// written already.
    package func run(
        inMemory pipeline: LinePipeline<InMemorySuppressionStore, NoAnswerLog, ReplayOutput>, writingFrom: (source: Int, line: Int)? = nil
    ) -> ReplayOutcome {
        run(through: pipeline, state: nil, writingFrom: writingFrom)
    }

    /// Runs the lines through `pipeline`, whose store and log are the state file `state`,
    /// committed a block at a time.
    package func run(stateFile pipeline: LinePipeline<SQLiteStateStore, SQLiteStateStore, ReplayOutput>, state: SQLiteStateStore) -> ReplayOutcome {
        run(through: pipeline, state: state, writingFrom: nil)
    }

    /// The loop, specialized here for each of the two pipelines above (a generic call from
    /// another module ran unspecialized: every call on the pipeline through witness tables, 7 %
    /// more instructions per event).
    private func run<Store: SuppressionStore, Log: AnswerLog>(
        through pipeline: LinePipeline<Store, Log, ReplayOutput>, state: SQLiteStateStore?,
        writingFrom: (source: Int, line: Int)?
    ) -> ReplayOutcome {
        var outcome = ReplayOutcome()
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
            pipeline.setWallClock(ReplaySources.wallClock())
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
        pipeline.setWallClock(ReplaySources.wallClock())
        defer { state?.rollback() }
        for (sourceIndex, source) in sources.enumerated() {
            let name = source == "-" ? "stdin" : source
            pipeline.output.source = name
            let intake = LineIntake.replay(source: name)
            if input == .recordedScans {
                guard let items = ReplaySources.recordedScan(source, name: name, outcome: &outcome) else { break }
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
            guard let fd = ReplaySources.open(source, outcome: &outcome) else { break }
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
                while let line = ReplaySources.nextLine(of: &reader, failing: &readError) {
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
            } catch let error as ReadError {
                outcome.failure = "\(name): read failed: \(error)"
                // The lines read before the error were applied: their records are committed and
                // written, as `--jobs N` writes them, before replay stops.
                _ = try? flush()
            } catch {
                outcome.failure = "cannot save the state: \(error)"
                return outcome
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
}
