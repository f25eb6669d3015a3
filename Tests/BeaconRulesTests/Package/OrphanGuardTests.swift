import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a test starts does not outlive a test process that dies before its cleanup runs.
@Suite("What a test starts ends with it")
struct OrphanGuardTests {
    /// A child started with `Process`, reaped by a waiting thread so that `kill(pid, 0)` fails once it is gone.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls (at most a minute) until `process` has ended.
    static func ended(_ process: Process) async -> Bool {
        for _ in 0..<600 {
            if !process.isRunning { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aGuardedProcessIsKilledWhenItsOwnerDies() async throws {
        let owner = try Self.start(["300"])
        let child = try Self.start(["300"])
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        OrphanGuard.guardProcess(child.processIdentifier, owner: owner.processIdentifier)
        #expect(child.isRunning)
        kill(owner.processIdentifier, SIGKILL)
        #expect(await Self.ended(owner))
        #expect(await Self.ended(child), "the guarded child outlived its owner")
    }

    @Test func aGuardedDirectoryIsStoppedAndRemovedWhenItsOwnerDies() async throws {
        let directory = Paths.temporaryDirectory()
        let owner = try Self.start(["300"])
        let marker = Paths.temporaryDirectory() + "/stopped"
        OrphanGuard.guardDirectory(directory, stop: ["/usr/bin/touch", marker], owner: owner.processIdentifier)
        kill(owner.processIdentifier, SIGKILL)
        #expect(await Self.ended(owner))
        var removed = false
        for _ in 0..<600 where !removed {
            removed = !FileManager.default.fileExists(atPath: directory)
            if !removed { try? await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(removed, "the guarded folder outlived its owner")
        #expect(FileManager.default.fileExists(atPath: marker), "the stop command did not run")
        try? FileManager.default.removeItem(atPath: (marker as NSString).deletingLastPathComponent)
    }
}
