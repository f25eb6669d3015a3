import Foundation

/// What the real `beaconrules` binary printed and how it exited.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real `beaconrules` binary, stdout and stderr captured through files so that
/// a large output can never block it.
enum CommandRunner {
    /// `stdin` comes from a file, which the binary maps like any regular file; with `throughPipe`
    /// it is written into a pipe instead, which the binary reads in chunks. `environment` is
    /// added to this process's.
    static func run(_ arguments: [String], stdin: String? = nil, throughPipe: Bool = false, directory: String = Paths.root.path, executable: String = Paths.binary, environment: [String: String] = [:]) throws -> CommandResult {
        let scratch = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let outPath = scratch + "/stdout", errPath = scratch + "/stderr", inPath = scratch + "/stdin"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        if !throughPipe { _ = FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let pipe = Pipe()
        process.standardInput = throughPipe ? pipe : try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        try process.run()
        if throughPipe {
            // The binary's output goes to files, so it never waits on this writer and the write
            // can be whole. A binary that stops reading early must fail the test, not kill it.
            signal(SIGPIPE, SIG_IGN)
            try? pipe.fileHandleForWriting.write(contentsOf: Data((stdin ?? "").utf8))
            try? pipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: Paths.read(outPath), stderr: Paths.read(errPath))
    }

    /// Runs `script` with /bin/sh from the repository root (for pipes and redirections); its status.
    @discardableResult
    static func shell(_ script: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = Paths.root
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
