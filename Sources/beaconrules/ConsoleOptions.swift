import ArgumentParser
import BeaconRulesHTTP
import BeaconRulesReplay
import BeaconRulesServer
import Foundation

/// `--token-file`, shared by `console` and `http --console`: the token every console request
/// must carry. Off loopback the console does not start without one.
struct ConsoleOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A file whose first line is the token every console request must carry (Authorization: Bearer TOKEN, or the login form's cookie); required off loopback.", valueName: "file"))
    var tokenFile: String?

    /// The console's settings, or exit 2 saying why: off loopback without a token, or a token
    /// file that does not read or is empty.
    func settings(catalog: CatalogOptions, host: String, hasState: Bool) throws -> ConsoleSettings {
        var token: String?
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                StandardError.write("beaconrules: --token-file \(tokenFile): cannot read it\n")
                throw ExitCode(2)
            }
            let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard line.count >= 16 else {
                StandardError.write("beaconrules: --token-file \(tokenFile): the token (its first line) must be at least 16 characters\n")
                throw ExitCode(2)
            }
            token = line
        }
        if token == nil && !ServerConfiguration.isLoopback(host) {
            StandardError.write("beaconrules: the console on \(host) (not loopback) needs --token-file: anyone who reaches it could read and change every campaign\n")
            throw ExitCode(2)
        }
        return ConsoleSettings(campaigns: catalog.paths, locales: catalog.localesDirectory, token: token, hasState: hasState)
    }
}
