import ArgumentParser
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesStore
import Logging

/// `beaconrules state`: upkeep of a state (a PostgreSQL schema, a copy from one store to another).
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Upgrade a PostgreSQL state's schema, or copy a state (SQLite file or PostgreSQL) into an empty one.",
        subcommands: [Migrate.self, Copy.self])

    struct Migrate: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upgrade the schema of a PostgreSQL state to this version's (creating it in an empty database). Stop every instance first.")

        @OptionGroup var stateOptions: StateOptions

        func runOnMain() async throws {
            do throws(StoreError) {
                guard case .postgres(let location) = try stateOptions.location() else {
                    throw StoreError(path: stateOptions.state ?? "--state", message: "not a PostgreSQL URL; migrate upgrades a database postgres://USER@HOST:PORT/DB (a state file is upgraded when opened)")
                }
                let found = try await PostgresSchema.migrate(location, logger: Logger(label: "beaconrules.state"))
                let message = found == PostgresSchema.version
                    ? "\(location): schema version \(found), up to date\n"
                    : "\(location): schema version \(found) upgraded to \(PostgresSchema.version)\n"
                OutputSink(fd: 1).write(Array(message.utf8))
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        }
    }

    struct Copy: MainThreadCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a state (an SQLite file as serve/replay --state keep it, or a PostgreSQL database) into an empty one of either kind.")

        @Option(help: ArgumentHelp("The state to copy: an SQLite file, or postgres://USER@HOST:PORT/DB[?sslmode=...].", valueName: "file|url"))
        var from: String

        @Option(help: ArgumentHelp("The empty state to copy into: an SQLite file (created if missing), or postgres://USER@HOST:PORT/DB[?sslmode=...].", valueName: "file|url"))
        var to: String

        @Option(help: ArgumentHelp("The PostgreSQL password, the first line of this file (else PGPASSWORD).", valueName: "file"))
        var statePasswordFile: String?

        func runOnMain() async throws {
            let logger = Logger(label: "beaconrules.state")
            do throws(StoreError) {
                let target = try StateLocation(to, passwordFile: statePasswordFile)
                let source = try await StateLocation(from, passwordFile: statePasswordFile).openExisting(logger: logger)
                let export = try await source.export()
                source.close()
                let copy = try await target.open(logger: logger)
                defer { copy.close() }
                try await copy.importState(export)
                OutputSink(fd: 1).write(Array("copied \(export.summary) to \(target)\n".utf8))
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        }
    }
}
