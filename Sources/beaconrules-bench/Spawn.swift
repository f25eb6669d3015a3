import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command with stdout to /dev/null (or a file) and reports wall time and peak RSS (wait4).
enum Spawn {
    struct Result {
        var status: Int32
        /// Wall-clock time.
        var seconds: Double
        /// User plus system CPU time: on a shared machine, less disturbed by other processes than wall time.
        var cpuSeconds: Double
        var maxRSSKiB: Int
    }

    static func run(_ arguments: [String], stdoutPath: String = "/dev/null") throws -> Result {
        try run(arguments, stdout: .file(stdoutPath))
    }

    /// Where the child's stdout goes: a file, or a pipe whose lines and bytes are counted as they stream.
    enum Output {
        case file(String)
        case counted
    }

    struct Counts {
        var lines = 0
        var bytes = 0
    }

    static func run(_ arguments: [String], stdout: Output, counts: UnsafeMutablePointer<Counts>? = nil) throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var fds: [Int32] = [-1, -1]
        switch stdout {
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .counted:
            guard pipe(&fds) == 0 else { throw SpawnError(message: "pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw SpawnError(message: "cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
        if case .counted = stdout {
            close(fds[1])
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var tally = Counts()
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fds[0], $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                tally.bytes += n
                for i in 0..<n where buffer[i] == 0x0A { tally.lines += 1 }
            }
            close(fds[0])
            counts?.pointee = tally
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Result(status: exitCode, seconds: seconds, cpuSeconds: cpu, maxRSSKiB: usage.ru_maxrss)
    }

    struct SpawnError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// Resident bytes per suppression entry: the growth of this process's RSS while a store fills.
enum StateSize {
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    static func measure(devices: Int, campaignsPerDevice: Int) -> Double {
        let before = residentBytes()
        var store = InMemoryStoreFactory.make()
        for d in 0..<devices {
            let device = "dev-\(d)"
            for c in 0..<campaignsPerDevice {
                InMemoryStoreFactory.record(&store, device: device, campaign: c)
            }
        }
        let after = residentBytes()
        let entries = devices * campaignsPerDevice
        withExtendedLifetime(store) {}
        return Double(after - before) / Double(entries)
    }
}
