import BeaconRules
import Logging
import NIOCore

/// The server's steps around its pipeline, the same for every store (`OwnerLoop` with a
/// synchronous log, `SharedOwnerLoop` with a database).
extension LinePipeline where Output == ReplyOutput {
    /// The server's pipeline over `engine` and `log`, with the delivery ledger and the presence
    /// state read from `log` (a shared log's presence is read when this instance takes it); one
    /// that does not load is logged and the server starts without it.
    static func served(
        engine: RulesEngine<Store>, log: Log, format: OutputFormat, presence settings: PresenceSettings, retention: Retention, logger: Logger
    ) -> LinePipeline {
        let pipeline = LinePipeline(
            engine: PresenceEngine(engine: engine, settings: settings), log: log,
            output: ReplyOutput(collectsReferences: log.keepsReferences, logger: logger), format: format,
            logsPresenceInput: true, retention: retention)
        do { try pipeline.loadLedger() } catch {
            logger.error("the delivery ledger did not load; responses to earlier records are unknown ids", metadata: ["error": "\(error)"])
        }
        // Open stays, pending exits and dwells of the last run carry on.
        do { try pipeline.loadPresence() } catch {
            logger.error("the saved presence state does not load; starting with none", metadata: ["error": "\(error)"])
        }
        return pipeline
    }

    /// One connection's lines appended and applied in order; their reply lines.
    func apply(_ lines: [RequestLine], counting counts: inout BatchCounts) -> ByteBuffer {
        counts.lines += lines.count
        for line in lines {
            append(line)
            switch line {
            case .input(.beacon, _): counts.events += 1
            case .rejected: counts.invalidLines += 1
            default: break
            }
            if isBatchFull { applyBatch() }
        }
        applyBatch()
        let replies = ByteBuffer(bytes: output.replies.bytes)
        output.replies.removeAll()
        return replies
    }

    /// A committed transaction's counts (the output's with the lines') into the metrics.
    func recordCommitted(_ counts: BatchCounts, commit: Duration, metrics: ServeMetrics, logger: Logger) {
        var counts = counts
        counts.records = output.counts.records
        counts.silent = output.counts.silent
        counts.rejected = output.counts.rejected
        output.counts = BatchCounts()
        metrics.record(counts, commit: commit)
        logger.trace("committed", metadata: ["events": "\(counts.events)"])
    }

    /// Nothing of the transaction of `jobs` was kept: each line is answered so, and the client
    /// resends it. Its counts are dropped, and the lines counted as not saved.
    func notSaved(_ jobs: [EngineOwner.Job], _ error: any Error, metrics: ServeMetrics, logger: Logger) -> [(any ReplyTarget, ByteBuffer)] {
        var replies: [(any ReplyTarget, ByteBuffer)] = []
        var lineCount = 0
        var writer = JSONWriter(capacity: 1 << 12)
        for case .lines(let lines, let target) in jobs {
            writer.removeAll()
            for line in lines {
                Reply.rejected(line: line.line, message: "state not saved, resend this line: \(error)", into: &writer)
            }
            lineCount += lines.count
            replies.append((target, ByteBuffer(bytes: writer.bytes)))
        }
        output.counts = BatchCounts()
        output.replies.removeAll()
        metrics.notSaved(lineCount)
        logger.error("state not saved; \(lineCount) lines answered with an error", metadata: ["error": "\(error)"])
        return replies
    }
}

extension EngineOwner.Job {
    /// What the lines of `jobs` read (their devices and ids, the records their responses name,
    /// their outbox requests): what a shared database locks and reads before they are applied.
    static func reads(of jobs: [EngineOwner.Job]) -> TransactionReads {
        var reads = TransactionReads()
        for case .lines(let lines, _) in jobs {
            for line in lines {
                switch line {
                case .input(let input, _): reads.add(input)
                case .outbox(let after, _): reads.outboxAfter.append(after)
                case .rejected: break
                }
            }
        }
        return reads
    }
}
