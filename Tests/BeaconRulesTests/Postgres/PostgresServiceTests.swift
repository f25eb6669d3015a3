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
}
