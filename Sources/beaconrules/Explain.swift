import ArgumentParser
import BeaconRules
import BeaconRulesPostgres
import BeaconRulesReplay
import BeaconRulesService
import BeaconRulesStore
import Foundation
import Logging

/// `beaconrules explain`: for one event, every campaign with `fired` or the first rule that stopped it.
struct Explain: MainThreadCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain, for one event, why each campaign fires or not.",
        discussion: """
            Prints one line per campaign, in load order: `EID: fired (fireDate ..., language ...)` or the \
            first rule that stopped it (beacon does not match, trigger is exit only, outside timeframes \
            (next opens ...), suppressed until ..., already sent once, deliverAt has passed). The state \
            is read, never changed. Exit status: 0 explained; 2 bad usage, an event that does not parse, \
            or campaigns/locales/state that do not load.
            """
    )

    @Argument(help: ArgumentHelp("The event as one JSON object (SPEC section 1), `-` to read it from stdin, or a file holding it.", valueName: "event-json"))
    var event: String

    @OptionGroup var catalog: CatalogOptions

    @OptionGroup var stateOptions: StateOptions

    @OptionGroup var app: AppOption

    @Flag(name: .customLong("json"), help: "One JSON object per campaign instead of text.")
    var json = false

    func runOnMain() async throws {
        let beaconEvent = try parseEvent()
        let (campaigns, locales) = try catalog.load { warning in StandardError.write("beaconrules: \(warning)\n") }
        // A missing state file is an empty state (and is not created); an existing one is only
        // read. A database is read inside a transaction that is rolled back.
        var opened: OpenState?
        do throws(StoreError) {
            if let location = try stateOptions.location(), location.exists {
                opened = try await location.openExisting(app: app.id, logger: Logger(label: "beaconrules.explain"))
            }
        } catch {
            StandardError.write("beaconrules: \(error)\n")
            throw ExitCode(2)
        }
        switch opened {
        case .sqlite(let store):
            defer { store.close() }
            report(RulesEngine(campaigns: campaigns, locales: locales, store: store), beaconEvent)
        case .postgres(let store):
            defer { store.close() }
            do throws(StoreError) {
                try await store.begin()
                try await store.prepare(TransactionReads(devices: [beaconEvent.device]))
            } catch {
                await store.rollback()
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            report(RulesEngine(campaigns: campaigns, locales: locales, store: store), beaconEvent)
            await store.rollback()
        case nil:
            report(RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), beaconEvent)
        }
    }

    func parseEvent() throws -> BeaconEvent {
        var text = event
        var source = "argument"
        let trimmed = event.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        if event == "-" || !trimmed.hasPrefix("{") {
            source = event == "-" ? "stdin" : event
            let data = event == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: event)
            guard let data else {
                StandardError.write("beaconrules: \(event): not an event (expected a JSON object like {\"type\":\"enter\",\"device\":\"d-1\",\"beacon\":\"...\",\"time\":\"2016-05-10T16:00:00Z\"}) and no such file\n")
                throw ExitCode(2)
            }
            // The first line that is not blank: a trace file can be explained event by event.
            text = String(decoding: data, as: UTF8.self).split(separator: "\n").first { !$0.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" } }.map(String.init) ?? ""
        }
        do {
            return try EventParser.parse(line: text, fallbackID: "\(source):1")
        } catch {
            StandardError.write("beaconrules: \(source): the event does not parse: \(error.description)\n")
            throw ExitCode(2)
        }
    }

    func report<Store: SuppressionStore>(_ engine: RulesEngine<Store>, _ event: BeaconEvent) {
        var out = ""
        for explanation in Explanation.all(engine, event) {
            out += json ? explanation.json : explanation.text
            out += "\n"
        }
        print(out, terminator: "")
    }
}
