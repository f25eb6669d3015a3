import BeaconRules
import Foundation

/// One of `replay --jobs N`'s engines, on a thread of its own: it takes its devices' lines a
/// block at a time (`work`), applies them through a pipeline of its own (engine, suppression
/// state and delivery ledger for its devices only), and hands each block's records to the writer
/// (`blocks`). It shares nothing with the other shards; the queues are the only way in and out.
struct ReplayShard: Sendable {
    let index: Int
    let router: DeviceRouter
    let work = BoundedQueue<ShardWork>(capacity: ShardedReplay.depth)
    let blocks = BoundedQueue<ShardBlock>(capacity: ShardedReplay.depth)
    /// Emptied work and writers handed back, so that blocks reuse their buffers.
    let spareWork = BoundedQueue<ShardWork>(capacity: ShardedReplay.depth + 1)
    let spareWriters = BoundedQueue<JSONWriter>(capacity: ShardedReplay.depth + 1)

    /// Starts the shard's thread. The pipeline is built there and never leaves it.
    func start(campaigns: CampaignSet, locales: LocaleTable, tails: SharedTails, settings: PresenceSettings, format: OutputFormat, refusal: String?, retention: Retention) {
        let thread = Thread {
            // The campaign index built again, here: shared arrays would have their reference
            // counts (touched per event) bounce between the cores.
            let own = CampaignSet(campaigns.campaigns)
            let pipeline = LinePipeline(
                engine: PresenceEngine(engine: RulesEngine(campaigns: own, locales: locales, store: InMemorySuppressionStore(), sharedTails: tails), settings: settings),
                log: NoAnswerLog(), output: ShardOutput(), format: format,
                logsPresenceInput: false, refusingResponses: refusal, retention: retention)
            run(pipeline)
            // The records written last refer to the engine's tails, and freeing a large engine
            // object by object only delays the exit: the pipeline is left for the OS to reclaim.
            _ = Unmanaged.passRetained(pipeline)
        }
        thread.stackSize = 1 << 23
        thread.start()
    }

    private func run(_ pipeline: LinePipeline<InMemorySuppressionStore, NoAnswerLog, ShardOutput>) {
        while var next = work.pop() {
            pipeline.output.start(source: next.source, records: spareWriters.poll() ?? ShardOutput.writer())
            // The block's lines lie in the mapped file, or else the reader copied them here.
            let bytes = next.mapping?.bytes.baseAddress ?? next.bytes.start
            for line in next.lines {
                if line.input >= 0 {
                    let parsed = next.inputs[line.input]
                    pipeline.append(parsed.input, line: line.number, identified: parsed.identified)
                } else {
                    let text = UnsafeBufferPointer(start: bytes + line.start, count: line.count)
                    if !pipeline.appendUsualLayout(text, line: line.number) {
                        appendInGeneral(text, number: line.number, source: next.source, to: pipeline)
                    }
                }
                if pipeline.isBatchFull { pipeline.applyBatch() }
            }
            pipeline.applyBatch()
            // As `--jobs 1` after each block: state that can no longer change a decision goes
            // (SPEC section 5). The log keeps nothing, so this cannot fail.
            try? pipeline.settle()
            next.removeAll()
            spareWork.offer(next)
            guard blocks.push(pipeline.output.take()) else { return }
        }
        blocks.close()
    }

    /// A line the reader routed by its usual-layout device that the usual-layout reader did not
    /// take after all (a field further on in another form, or not a beacon event): parsed as
    /// `replay` parses it.
    private func appendInGeneral(
        _ text: UnsafeBufferPointer<UInt8>, number: Int, source: String,
        to pipeline: LinePipeline<InMemorySuppressionStore, NoAnswerLog, ShardOutput>
    ) {
        let read = LineIntake.replay(source: source).readInGeneral(text, number: number)
        if case .input(let input, _) = read {
            if case .sighting = input {
                pipeline.appendRejected(ShardedReplay.sightingRefusal(jobs: router.shards), line: number)
                return
            } else if case .response = input {
                // Not in the usual layout, so the reader never routes one here: kept for safety.
            } else if let device = input.device, router.shard(device) != index {
                // Only a line that names its device twice gets here (the last one counts).
                pipeline.appendRejected("field `device`: the line names its device twice; expected one `device` member (replay --jobs routes a line by its first)", line: number)
                return
            }
        }
        pipeline.append(read, line: number)
    }
}
