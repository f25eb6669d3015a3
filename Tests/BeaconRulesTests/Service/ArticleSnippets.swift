import BeaconRulesService
import Logging
import ServiceLifecycle

// The code blocks of the DocC article "Embedding BeaconRules in a backend" that are not the
// example program, compiled here (`ArticleTests` checks that the article shows them as they are).

func handle(_ event: BeaconEvent, _ response: ResponseEvent, with rules: RulesService) async throws -> [Record] {
    let records = try await rules.process(event)          // committed before it returns
    let more = try await rules.respond(response)           // LineRejected when the record is unknown
    let why = try await rules.explain(event)               // the state is read, never changed
    print(why.map(\.text).joined(separator: "\n"))
    return records + more
}

func serve(_ rules: RulesService, logger: Logger) async throws {
    let group = ServiceGroup(services: [rules], logger: logger)   // with your other services
    try await group.run()
}
