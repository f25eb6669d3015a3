import BeaconRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Replay {
    /// The most engines `--jobs` takes (a block's plan has a bit per shard).
    static let mostJobs = 64

    /// How many engines this run shares the events out to: `--jobs`, by default the cores the
    /// process may run on; one whenever the input is not applied per device alone. `--state` has
    /// one writer (the SQLite file, one connection), and the presence layer (flicker control,
    /// recorded scans, dwell) has one clock and exclusive zones across devices.
    ///
    /// Sightings go through the presence layer too, and may come in any line: a file (or stdin
    /// from a file) is searched for one first (`"sighting"`, as mapped, a fraction of a read),
    /// and one that has any is replayed with one job. A pipe cannot be searched ahead: it is
    /// read with one job unless `--jobs` is given, and then a sighting in it is refused.
    func jobs(settings: PresenceSettings, sources: [String]) -> Int {
        if stateFile != nil || settings.flickerControl || presenceOptions.inputFormat == .starksm64 { return 1 }
        let wanted = min(jobs ?? Self.usableCores(), Self.mostJobs)
        if wanted == 1 { return 1 }
        for source in sources {
            switch Self.mentionsSightings(source) {
            case true?: return 1
            case nil where jobs == nil: return 1
            default: continue
            }
        }
        return wanted
    }

    /// Whether the file (or stdin, from where it stands) holds the bytes `"sighting"`; nil: it
    /// is not a regular file (a pipe) and cannot be searched ahead.
    static func mentionsSightings(_ source: String) -> Bool? {
        let fd = source == "-" ? 0 : open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }  // replay reports it when it gets there
        defer { if fd != 0 { close(fd) } }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let offset = source == "-" ? max(Int(lseek(fd, 0, SEEK_CUR)), 0) : 0
        let size = Int(info.st_size)
        guard size > offset else { return false }
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, size) }
        return contains(sighting: UnsafeRawBufferPointer(start: map + offset, count: size - offset))
    }

    /// Whether `bytes` hold `"sighting"`: each `h` (rare in events: no key and no hex digit has
    /// one) found with `memchr` is checked for the word around it.
    static func contains(sighting bytes: UnsafeRawBufferPointer) -> Bool {
        let word = Array(#""sighting""#.utf8)
        let h = 4  // where the word has its `h`
        guard let base = bytes.baseAddress else { return false }
        var at = h
        while at < bytes.count, let hit = memchr(base + at, 0x68, bytes.count - at) {
            let k = base.distance(to: UnsafeRawPointer(hit))
            if k >= h && k - h + word.count <= bytes.count && memcmp(base + k - h, word, word.count) == 0 { return true }
            at = k + 1
        }
        return false
    }

    /// The cores this process may run on (its affinity: `taskset -c 1` gives one), at least 1.
    /// Read from `Cpus_allowed` in /proc/self/status (a hex mask), as Glibc's module does not
    /// export `sched_getaffinity`; elsewhere, the cores online.
    static func usableCores() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let count = line.dropFirst("Cpus_allowed:".count).reduce(0) { $0 + ($1.hexDigitValue?.nonzeroBitCount ?? 0) }
            if count > 0 { return count }
        }
        return max(ProcessInfo.processInfo.activeProcessorCount, 1)
    }
}
