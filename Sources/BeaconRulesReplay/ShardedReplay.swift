package import BeaconRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `replay --jobs N` with N > 1: the events shared out by device over N engines, each on a
/// thread of its own (`ReplayShard`), and the records written in input order by one writer
/// (`OrderedRecordWriter`), byte for byte what one engine writes.
///
/// This thread reads: it cuts the input into blocks of lines, reads each line's device (in place
/// for the usual layout, `DeviceRouter`), hands each shard its lines of the block and the
/// writer the block's plan (which shard has which line). Lines it cannot route are refused here,
/// in their place. Every queue holds at most `depth` blocks, so memory is flat in the number of
/// events. Only for input that is applied per device: no `--state` (one writer of the file), no
/// presence layer (its clock and exclusive zones span devices); `ShardedReplay.jobs` decides.
package struct ShardedReplay {
    let jobs: Int
    let sources: [String]
    let campaigns: CampaignSet
    let locales: LocaleTable
    let settings: PresenceSettings
    let format: OutputFormat
    let refusal: String?
    /// `--response-window` and the other durations: each shard forgets its own devices' state by them.
    let retention: Retention

    /// A replay of `sources` over `jobs` engines; `refusal`: why a response line is refused
    /// (`--no-responses`), nil to take them.
    package init(
        jobs: Int, sources: [String], campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings,
        format: OutputFormat, refusal: String?, retention: Retention
    ) {
        self.jobs = jobs
        self.sources = sources
        self.campaigns = campaigns
        self.locales = locales
        self.settings = settings
        self.format = format
        self.refusal = refusal
        self.retention = retention
    }

    /// The most engines `--jobs` takes (a block's plan has a bit per shard).
    package static let mostJobs = 64

    /// Blocks in flight on each queue.
    static let depth = 4
    /// A block ends at this many lines or bytes of lines.
    static let blockLines = 4096
    static let blockBytes = 1 << 22

    /// Why a sighting is refused (only where the input cannot be read again: a pipe).
    static func sightingRefusal(jobs: Int) -> String {
        "a sighting, but replay runs with --jobs \(jobs): sightings go through the presence layer, whose clock spans devices; replay input with sightings with --jobs 1"
    }

    /// How the shards' run ended.
    package struct Outcome {
        /// Why replay stopped early (stdout closed, a source that cannot be read); nil: not.
        package var failure: String?
        /// Lines refused with a JSON error on stderr.
        package var rejectedLines = 0
        /// The first sighting's source (index) and line: the records before it are written, and
        /// the rest is for one engine (`Replay.runOnMain`, then `OneEngineReplay`).
        package var oneJobFrom: (source: Int, line: Int)?
    }

    /// Reads every source, applies it on the shards and writes the records in input order.
    package func run() -> Outcome {
        let router = DeviceRouter(shards: jobs)
        let shards = (0..<jobs).map { ReplayShard(index: $0, router: router) }
        // Each tail is rendered by the first shard that needs it, and taken by the others.
        let tails = SharedTails()
        for shard in shards { shard.start(campaigns: campaigns, locales: locales, tails: tails, settings: settings, format: format, refusal: refusal, retention: retention) }
        let plans = BoundedQueue<BlockPlan>(capacity: Self.depth)
        let written = BoundedQueue<(ok: Bool, rejected: Int)>(capacity: 1)
        let writerThread = Thread {
            var writer = OrderedRecordWriter(plans: plans, shards: shards)
            let ok = writer.run()
            written.push((ok, writer.rejectedLines))
        }
        writerThread.start()

        var reader = BlockReader(router: router, shards: shards, plans: plans)
        var outcome = Outcome()
        outcome.failure = reader.read(sources)
        outcome.oneJobFrom = reader.oneJobFrom
        plans.close()
        for shard in shards { shard.work.close() }
        let result = written.pop() ?? (false, 0)
        outcome.rejectedLines = result.rejected
        if !result.ok { outcome.failure = "stdout was closed; stopped" }
        return outcome
    }
}
