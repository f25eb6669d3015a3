// The museum trace through `RulesService`, as a backend would adopt it: campaigns and locales
// loaded, state in an SQLite file (the first argument), events in, records out. Run from the
// package's folder: `swift run museum-embedding museum.state`.
import BeaconRulesService
import Foundation

let trace = "Tests/Fixtures/museum-day.jsonl"
let rules = try RulesService(campaigns: [.path("Campaigns")], locales: .folder("Locales"), state: .sqlite(path: CommandLine.arguments[1]))
let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
for case .accepted(_, let records) in try await rules.process(lines: lines, source: trace) {
    for record in records { print(record.json) }
}
await rules.close()
