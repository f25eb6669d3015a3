import ArgumentParser
import BeaconRulesPostgres
import BeaconRulesStore
import Logging

/// `beaconrules state`: upkeep of a PostgreSQL state (its schema, a copy from an SQLite file).
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Upgrade a PostgreSQL state's schema, or copy an SQLite state file into PostgreSQL.",
        subcommands: [Migrate.self, Copy.self])

    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upgrade the schema of a PostgreSQL state to this version's (creating it in an empty database). Stop every instance first.")

        @Option(name: .customLong("state"), help: ArgumentHelp("postgres://USER@HOST:PORT/DB[?sslmode=...]", valueName: "url"))
        var state: String

        @Option(help: ArgumentHelp("The PostgreSQL password, the first line of this file (else PGPASSWORD).", valueName: "file"))
        var statePasswordFile: String?

        func run() throws {
            do throws(StoreError) {
                let location = try StateURL.location(state, passwordFile: statePasswordFile)
                let found = try PostgresSchema.migrate(location, logger: Logger(label: "beaconrules.state"))
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

    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy an SQLite state file (serve/replay --state) into an empty PostgreSQL state.")

        @Option(help: ArgumentHelp("The SQLite state file.", valueName: "file"))
        var from: String

        @Option(help: ArgumentHelp("postgres://USER@HOST:PORT/DB[?sslmode=...]", valueName: "url"))
        var to: String

        @Option(help: ArgumentHelp("The PostgreSQL password, the first line of this file (else PGPASSWORD).", valueName: "file"))
        var statePasswordFile: String?

        func run() throws {
            do throws(StoreError) {
                let location = try StateURL.location(to, passwordFile: statePasswordFile)
                let source = try SQLiteStateStore(path: from)
                let export = try source.export()
                source.close()
                let target = try PostgresStateStore(location: location, logger: Logger(label: "beaconrules.state"))
                try target.importState(export)
                target.close()
                let message = "copied \(export.firings.count) firings, \(export.answers.count) answers, \(export.ledger.count) ledger lines, \(export.outbox.count) outbox entries to \(location)\n"
                OutputSink(fd: 1).write(Array(message.utf8))
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        }
    }
}
