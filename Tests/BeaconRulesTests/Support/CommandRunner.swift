import Foundation

/// Runs the real `beaconrules` binary and captures what it prints.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CommandRunner {
    static func run(_ arguments: [String], stdin: String? = nil, directory: String = Paths.root.path) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Drain both pipes while the process runs so a large output cannot block it.
        let outData = Collected(), errData = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self), stderr: String(decoding: errData.data, as: UTF8.self))
    }
}

/// Bytes read from a pipe on another thread. Unchecked: each box is written once by its reader
/// before `group.leave()` and read only after `group.wait()`, which orders the two.
private final class Collected: @unchecked Sendable {
    var data = Data()
}
