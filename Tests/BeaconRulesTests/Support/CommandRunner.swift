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
    static func run(_ arguments: [String], stdin: String? = nil, directory: String = Paths.root.path) throws -> CommandResult {
        let scratch = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let outPath = scratch + "/stdout", errPath = scratch + "/stderr", inPath = scratch + "/stdin"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        try process.run()
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus, stdout: Paths.read(outPath), stderr: Paths.read(errPath))
    }
}
