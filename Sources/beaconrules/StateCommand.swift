import ArgumentParser
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesService
import BeaconRulesStore
import Logging

/// `beaconrules state`: upkeep of a state (a PostgreSQL schema, a copy from one store to another,
/// the apps a state holds, one app dropped).
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Upgrade a PostgreSQL state's schema, copy a state or one app of it (SQLite file or PostgreSQL), list or drop its apps.",
        subcommands: [Migrate.self, Copy.self, Apps.self, Drop.self])

    struct Migrate: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upgrade the schema of a PostgreSQL state to this version's (creating it in an empty database). Stop every instance first.")

        @OptionGroup var stateOptions: StateOptions

        func runOnMain() async throws {
            try await StateCommand.reportingErrors { () throws(StoreError) in
                guard case .postgres(let location) = try stateOptions.location() else {
                    throw StoreError(path: stateOptions.state ?? "--state", message: "not a PostgreSQL URL; migrate upgrades a database postgres://USER@HOST:PORT/DB (a state file is upgraded when opened)")
                }
                let found = try await PostgresSchema.migrate(location, logger: Logger(label: "beaconrules.state"))
                let message = found == PostgresSchema.version
                    ? "\(location): schema version \(found), up to date\n"
                    : "\(location): schema version \(found) upgraded to \(PostgresSchema.version)\n"
                OutputSink(fd: 1).write(Array(message.utf8))
            }
        }
    }

    struct Copy: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a state (an SQLite file as serve/replay --state keep it, or a PostgreSQL database) into an empty one of either kind, or one app of it (--app) into a state that does not hold that app.")

        @Option(help: ArgumentHelp("The state to copy: an SQLite file, or postgres://USER@HOST:PORT/DB[?sslmode=...].", valueName: "file|url"))
        var from: String

        @Option(help: ArgumentHelp("The state to copy into: an SQLite file (created if missing), or postgres://USER@HOST:PORT/DB[?sslmode=...]; empty, or without the app copied.", valueName: "file|url"))
        var to: String

        @Option(help: ArgumentHelp("Copy only this app's state (a state written without --apps is the app `default`'s).", valueName: "id"))
        var app: String?

        @Option(name: .customLong("as"), help: ArgumentHelp("With --app: the id the app has in the copy (default: the same).", valueName: "id"))
        var asID: String?

        @Option(help: ArgumentHelp("The PostgreSQL password, the first line of this file (else PGPASSWORD).", valueName: "file"))
        var statePasswordFile: String?

        func validate() throws {
            if asID != nil && app == nil { throw ValidationError("--as names the copy of the app --app gives; give --app too") }
            for id in [app, asID].compactMap({ $0 }) where !AppDefinition.isValidID(id) {
                throw ValidationError("\"\(id)\" is not an app id: 1 to 64 of A-Z a-z 0-9 _ -")
            }
        }

        func runOnMain() async throws {
            let logger = Logger(label: "beaconrules.state")
            try await StateCommand.reportingErrors { () throws(StoreError) in
                let target = try StateLocation(to, passwordFile: statePasswordFile)
                let origin = try StateLocation(from, passwordFile: statePasswordFile)
                guard origin.exists else {
                    throw StoreError(path: origin.description, message: "no such state file; give the file that `replay --state` wrote")
                }
                let source = try await origin.openForUpkeep(logger: logger)
                var exports: [(app: String, export: StateExport)] = []
                do throws(StoreError) {
                    let ids: [String]
                    if let app { ids = [app] } else { ids = try await source.appIDs() }
                    for id in ids {
                        exports.append((id, try await source.export(app: id)))
                    }
                } catch {
                    source.close()
                    throw error
                }
                source.close()
                let copy = try await target.openForUpkeep(logger: logger)
                defer { copy.close() }
                if app == nil, try await copy.holdsState() {
                    let kind = if case .sqlite = target { "the file" } else { "the database" }
                    throw StoreError(path: target.description, message: "\(kind) already holds a state; copy into an empty one, or one app at a time (--app)")
                }
                for (id, export) in exports { try await copy.importState(export, app: asID ?? id) }
                var total = StateExport()
                for (_, export) in exports {
                    total.firings += export.firings
                    total.answers += export.answers
                    total.ledger += export.ledger
                    total.outbox += export.outbox
                }
                let what = app.map { id in "app \"\(id)\"" + (asID.map { $0 == id ? "" : " as \"\($0)\"" } ?? "") + " (\(total.summary))" }
                    ?? total.summary + (exports.count > 1 ? " of \(exports.count) apps" : "")
                OutputSink(fd: 1).write(Array("copied \(what) to \(target)\n".utf8))
            }
        }
    }

    struct Apps: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the apps a state holds, one id a line (a state written without --apps holds the app `default`).")

        @OptionGroup var stateOptions: StateOptions

        func runOnMain() async throws {
            try await StateCommand.onExisting(stateOptions) { state throws(StoreError) in
                OutputSink(fd: 1).write(Array(try await state.appIDs().map { $0 + "\n" }.joined().utf8))
            }
        }
    }

    struct Drop: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete one app and every row of its state from a state (SQLite file or PostgreSQL). Refused while the app is served: stop what serves it first.")

        @OptionGroup var stateOptions: StateOptions

        @Option(help: ArgumentHelp("The app to drop.", valueName: "id"))
        var app: String

        /// Refused while the app is served: a state file open in another process (its lock), or
        /// an instance on the database that has the app open (`PostgresStateStore.dropApp`).
        func runOnMain() async throws {
            try await StateCommand.reportingErrors { () throws(StoreError) in
                let state: OpenState
                do throws(StoreError) { state = try await StateCommand.existing(stateOptions) } catch {
                    throw error.inUse ? StateApps.fileInUse(dropping: app, error) : error
                }
                defer { state.close() }
                let counts = try await state.dropApp(app)
                OutputSink(fd: 1).write(Array("dropped app \"\(app)\" (\(counts.summary)) from \(try stateOptions.location().map(\.description) ?? "")\n".utf8))
            }
        }
    }

    /// Runs `work`; what goes wrong is said on stderr and ends the command with exit 2.
    @MainActor static func reportingErrors(_ work: @MainActor () async throws(StoreError) -> Void) async throws(ExitCode) {
        do { try await work() } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// Runs `work` on the state `options` names, which must exist, opened for upkeep and closed
    /// after; as `reportingErrors`.
    @MainActor static func onExisting(_ options: StateOptions, _ work: @MainActor (OpenState) async throws(StoreError) -> Void) async throws(ExitCode) {
        try await reportingErrors { () throws(StoreError) in
            let state = try await existing(options)
            defer { state.close() }
            try await work(state)
        }
    }

    /// The state `--state` names, which must exist, opened for upkeep.
    static func existing(_ options: StateOptions) async throws(StoreError) -> OpenState {
        guard let location = try options.location() else {
            throw StoreError(path: "--state", message: "give --state: the state file (or database) to look after")
        }
        guard location.exists else {
            throw StoreError(path: location.description, message: "no such state file; give the file that `replay --state` wrote")
        }
        return try await location.openForUpkeep(logger: Logger(label: "beaconrules.state"))
    }
}
