import Foundation
import Synchronization

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
        let outData = Captured(), errData = Captured()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData.set(out.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData.set(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self), stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

/// Bytes read on another thread, handed back under a lock.
final class Captured: Sendable {
    private let data = Mutex(Data())
    func set(_ value: Data) { data.withLock { $0 = value } }
    func get() -> Data { data.withLock { $0 } }
    func append(_ value: Data) { data.withLock { $0.append(value) } }
}
