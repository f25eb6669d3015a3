import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command with stdout to /dev/null (or a file) and reports wall time and peak RSS (wait4).
enum Spawn {
    struct Result {
        var status: Int32
        var seconds: Double
        var maxRSSKiB: Int
    }

    static func run(_ arguments: [String], stdoutPath: String = "/dev/null") throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw SpawnError(message: "cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exitCode, seconds: seconds, maxRSSKiB: usage.ru_maxrss)
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
