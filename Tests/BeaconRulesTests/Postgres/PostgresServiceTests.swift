import BeaconRules
import BeaconRulesPostgres
import BeaconRulesService
import Foundation
import Testing

/// `RulesService` on `StateStorage.postgres`: two services on one database, events alternating
/// between them, give the museum trace's golden records, and a resend to either is answered with
/// the stored records.
extension ServePostgresTests {
    @Test func twoServicesOnOneDatabaseGiveTheGoldenRecords() async throws {
        let url = try PostgresCluster.shared().createDatabase("service")
        let state = StateStorage.postgres(try PostgresLocation(url: url))
        let services = [
            try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), state: state),
            try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), state: state),
        ]
        let lines = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        let events = try lines.enumerated().map { try EventParser.parse(line: $1, fallbackID: "Tests/Fixtures/museum-day.jsonl:\($0 + 1)") }
        var out = ""
        for (n, event) in events.enumerated() {
            for record in try await services[n % 2].process(event) { out += record.json + "\n" }
        }
        #expect(out == Paths.read(Paths.fixture("museum-day.records.jsonl")))
        var resent = ""
        for (n, event) in events.enumerated() {
            for record in try await services[(n + 1) % 2].process(event) { resent += record.json + "\n" }
        }
        #expect(resent == out)
        for service in services { await service.close() }
    }

    /// Presence under flicker control: a call's events make records for devices it did not name
    /// (exits the presence clock confirms), so on the database such a call reads what it did not
    /// prepare, is rolled back and runs again. Its records are those of a service in memory.
    @Test func aServiceWhoseCallsRunAgainGivesWhatAServiceInMemoryGives() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.createDatabase("service_presence")
        var presence = PresenceSettings()
        presence.flickerControl = true
        let database = try RulesService(
            campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), state: .postgres(try PostgresLocation(url: url)), presence: presence)
        let memory = try RulesService(campaigns: [.path(Paths.campaigns)], locales: .folder(Paths.locales), presence: presence)
        let lines = Paths.read(Paths.fixture("museum-day.jsonl")).split(separator: "\n").map(String.init)
        let events = try lines.enumerated().map { try EventParser.parse(line: $1, fallbackID: "museum-day:\($0 + 1)") }
        var fromDatabase: [[String]] = [], fromMemory: [[String]] = []
        // Four events a call: each call one transaction.
        for start in stride(from: 0, to: events.count, by: 4) {
            let call = Array(events[start..<min(start + 4, events.count)])
            fromDatabase += try await database.process(call).map { $0.map(\.json) }
            fromMemory += try await memory.process(call).map { $0.map(\.json) }
        }
        await database.close()
        await memory.close()
        #expect(fromDatabase == fromMemory)
        #expect(fromMemory.joined().count > 0)
        #expect(try await cluster.rolledBackTransactions(in: "service_presence") > 0)
    }
}
