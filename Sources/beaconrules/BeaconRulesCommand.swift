import ArgumentParser
import Foundation

/// `beaconrules`: the command line around the BeaconRules engine.
@main
struct BeaconRulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beaconrules",
        abstract: "Match beacon enter/exit events against Sensorberg-format campaigns and emit localized notification records.",
        version: "0.1.0",
        subcommands: [Replay.self, Report.self, Serve.self, HTTPCommand.self, ConsoleCommand.self, Import.self, Lint.self, Explain.self, TimelineCommand.self, PresenceScoreCommand.self, StateCommand.self]
    )

    /// SPEC section 4 wants exit status 2 for bad usage; ArgumentParser's default is 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if let mainThread = command as? any MainThreadCommand {
                try await mainThread.runOnMain()
            } else if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || code.rawValue == 1 || code.rawValue == 2 {
                exit(withError: error)
            }
            // Usage mistakes (unknown option, missing argument, validation failure).
            let message = fullMessage(for: error)
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
        }
    }
}
