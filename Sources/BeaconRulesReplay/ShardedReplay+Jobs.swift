import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ShardedReplay {
    /// How many engines a replay shares the events out to: `asked` (`--jobs`), by default the
    /// cores the process may run on; one whenever the input is not applied per device alone
    /// (`perDevice` false): `--state` has one writer (the SQLite file, one connection), and the
    /// presence layer (flicker control, recorded scans, dwell) has one clock and exclusive zones
    /// across devices.
    ///
    /// Sightings go through the presence layer too, and may come in any line. Files (and stdin
    /// from a file) are not searched ahead: the shards stop at the first sighting, and one engine
    /// goes on from there (`Outcome.oneJobFrom`). A pipe cannot be read again: it is read with
    /// one job unless `--jobs` is given, and then a sighting in it is refused.
    package static func jobs(asked: Int?, perDevice: Bool, sources: [String]) -> Int {
        if !perDevice { return 1 }
        let wanted = min(asked ?? usableCores(), mostJobs)
        if wanted == 1 { return 1 }
        if asked == nil && sources.contains(where: { !isRegularFile($0) }) { return 1 }
        return wanted
    }

    /// Whether the source (a path, or "-": stdin) is a regular file, which can be read again;
    /// a source that cannot be opened counts as one (replay reports it when it gets there).
    static func isRegularFile(_ source: String) -> Bool {
        var info = stat()
        let found = source == "-" ? fstat(0, &info) : stat(source, &info)
        return found != 0 || (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The cores this process may run on (its affinity: `taskset -c 1` gives one), at least 1.
    /// Read from `Cpus_allowed` in /proc/self/status (a hex mask), as Glibc's module does not
    /// export `sched_getaffinity`; elsewhere, the cores online.
    package static func usableCores() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let count = line.dropFirst("Cpus_allowed:".count).reduce(0) { $0 + ($1.hexDigitValue?.nonzeroBitCount ?? 0) }
            if count > 0 { return count }
        }
        return max(ProcessInfo.processInfo.activeProcessorCount, 1)
    }
}
