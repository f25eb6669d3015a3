import ArgumentParser
import BeaconRulesReplay
import BeaconRulesStore
import Logging

/// `--state` and `--state-password-file`, shared by every command that keeps or reads the
/// engine's state (`replay`, `serve`, `http`, `report`, `explain`, `state migrate`).
struct StateOptions: ParsableArguments {
    @Option(name: .customLong("state"), help: ArgumentHelp("The state: an SQLite file (shared by replay, serve and http), or the PostgreSQL database postgres://USER@HOST:PORT/DB[?sslmode=disable|require|verify-full] (password from PGPASSWORD or --state-password-file).", valueName: "file|url"))
    var state: String?

    @Option(help: ArgumentHelp("The PostgreSQL password, the first line of this file (else PGPASSWORD).", valueName: "file"))
    var statePasswordFile: String?

    /// Where `--state` points; nil without it.
    func location() throws(StoreError) -> StateLocation? {
        guard let state else { return nil }
        return try StateLocation(state, passwordFile: statePasswordFile)
    }
}

extension StateOptions {
    /// The state of the apps `ids` (`serve --apps`), opened; nil without `--state`.
    nonisolated(nonsending) func openApps(_ ids: [String], checkpoints: CheckpointMode = .onThread, logger: Logger) async throws(StoreError) -> OpenApps? {
        guard let location = try location() else { return nil }
        return try await location.openApps(ids, checkpoints: checkpoints, logger: logger)
    }

    /// The store `--state` names, opened; nil without `--state`. A missing SQLite file is created,
    /// unless `existing` (`report`: a typo must not leave an empty state behind). A state that
    /// does not open ends the command: exit 2, the reason on stderr.
    nonisolated(nonsending) func open(existing: Bool = false, app: String? = nil, checkpoints: CheckpointMode = .onThread, logger: Logger) async throws(ExitCode) -> OpenState? {
        do throws(StoreError) {
            guard let location = try location() else { return nil }
            if existing { return try await location.openExisting(app: app, logger: logger) }
            return try await location.open(checkpoints: checkpoints, logger: logger)
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
    }
}

/// `--app ID` of the commands that read a state several apps may share (`report`, `explain`):
/// the app whose state is read.
struct AppOption: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("With a state several apps share (--apps): the app whose state is read (default: `default`, the state of a process without --apps).", valueName: "id"))
    var id: String?
}
