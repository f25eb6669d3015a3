import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The real `beaconrules serve` binary in a child process on 127.0.0.1 with `--port 0`: its
/// port read from stdout, its log kept for assertions, signals sent by pid.
final class ServerProcess: Sendable {
    let process: Process
    let port: Int
    let stdout: Captured
    let stderr: Captured

    var pid: Int32 { process.processIdentifier }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `serve` (or `command`) with `arguments` (after `serve --port 0`) and waits, at most 30 s, until it listens.
    static func start(_ arguments: [String], directory: String = Paths.root.path, command: String = "serve") async throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = [command, "--port", "0"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let stdout = Captured(), stderr = Captured()
        // Keep draining both pipes, or a chatty log would block the server on a full pipe.
        out.fileHandleForReading.readabilityHandler = { stdout.append($0.availableData) }
        err.fileHandleForReading.readabilityHandler = { stderr.append($0.availableData) }
        try process.run()
        OrphanGuard.guardProcess(process.processIdentifier)
        for _ in 0..<1500 {
            let text = String(decoding: stdout.get(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                return ServerProcess(process: process, port: port, stdout: stdout, stderr: stderr)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw StartFailure(description: "\(command) did not start listening: \(String(decoding: stderr.get(), as: UTF8.self))")
    }

    /// Starts `serve` (or `command`) as `start` does, runs `body` with it, and stops it, awaited,
    /// however `body` ends: it returns or throws only once the server is gone, so no test leaves
    /// its server running (nor a failing one its process). A body may stop the server itself
    /// first (to read its state file): stopping again does nothing.
    static func with<Result>(
        _ arguments: [String], directory: String = Paths.root.path, command: String = "serve",
        _ body: (ServerProcess) async throws -> Result
    ) async throws -> Result {
        let server = try await start(arguments, directory: directory, command: command)
        let result: Result
        do {
            result = try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return result
    }

    private init(process: Process, port: Int, stdout: Captured, stderr: Captured) {
        self.process = process
        self.port = port
        self.stdout = stdout
        self.stderr = stderr
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// The exit status, or nil if it still runs after `seconds` (then the caller kills it).
    func waitForExit(seconds: Double = 30) async -> Int32? {
        for _ in 0..<Int(seconds * 50) {
            if !process.isRunning { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// kill -9, and wait until it is gone.
    func crash() async {
        signal(SIGKILL)
        _ = await waitForExit()
    }

    /// Stops it whatever state it is in (for the end of a test).
    func stop() async {
        guard process.isRunning else { return }
        signal(SIGTERM)
        if await waitForExit(seconds: 10) == nil { await crash() }
    }

    var log: String { String(decoding: stderr.get(), as: UTF8.self) }

    /// The port of the stdout line `PREFIX HOST:PORT` (`metrics on 127.0.0.1:40123`), waiting at
    /// most 30 s for it.
    func printedPort(_ prefix: String) async -> Int? {
        for _ in 0..<1500 {
            let text = String(decoding: stdout.get(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits, at most `seconds`, until the log holds `text` `count` times.
    func waitForLog(_ text: String, count: Int = 1, seconds: Double = 30) async -> Bool {
        for _ in 0..<Int(seconds * 50) {
            if log.components(separatedBy: text).count - 1 >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// Bytes read on another thread, handed back under a lock.
final class Captured: Sendable {
    private let data = Mutex(Data())
    func get() -> Data { data.withLock { $0 } }
    func append(_ value: Data) { data.withLock { $0.append(value) } }
}
