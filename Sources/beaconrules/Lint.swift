import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import CampaignFiles
import CampaignLint
import Foundation

/// `beaconrules lint`: compiler-style diagnostics for campaigns (JSON and XML) and `Locales/`.
struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check campaigns and locales for mistakes, with compiler-style diagnostics.",
        discussion: """
            Prints `PATH:LINE:COLUMN: error: message` (or `PATH:LINE: warning: message` where no column \
            is known), one per line on stdout, sorted by file and line, and a count on stderr. \
            Exit status: 0 no errors (warnings allowed); 1 some error; 2 bad usage.
            """
    )

    @OptionGroup var catalog: CatalogOptions

    @Option(name: .customLong("now"), help: ArgumentHelp("The date the checks about the past compare with: RFC 3339 or YYYY-MM-DD (default: today).", valueName: "date"))
    var now: String?

    func run() throws {
        let reference = try referenceTime()
        let campaigns = CampaignFileReader(extraFormats: CampaignFormats.extra).load(paths: catalog.paths)
        let (locales, localeDiagnostics) = LocaleFiles.load(directory: catalog.localesDirectory)
        let directory = catalog.localesDirectory
        var diagnostics = campaigns.diagnostics + localeDiagnostics
        diagnostics += CampaignLinter(now: reference, locales: locales).lint(campaigns.campaigns)
        if localeDiagnostics.allSatisfy({ $0.location.line != 0 }) {
            diagnostics += LocaleLinter(locales: locales, file: { tag in directory + "/" + tag + ".json" }).lint()
        }
        // Files in load order, then lines: a report reads like the files it is about.
        var order: [String: Int] = [:]
        for (i, file) in campaigns.files.enumerated() where order[file] == nil { order[file] = i }
        let sorted = diagnostics.enumerated().sorted { a, b in
            let ka = (order[a.element.location.file] ?? Int.max, a.element.location.file, a.element.location.line, a.element.location.column ?? 0, a.offset)
            let kb = (order[b.element.location.file] ?? Int.max, b.element.location.file, b.element.location.line, b.element.location.column ?? 0, b.offset)
            return ka < kb
        }.map(\.element)
        var out = ""
        for diagnostic in sorted { out += "\(diagnostic)\n" }
        print(out, terminator: "")
        // The count follows the diagnostics wherever both streams go, also into one pipe.
        fflush(nil)
        let errors = sorted.filter { $0.severity == .error }.count
        let warnings = sorted.count - errors
        StandardError.write("lint: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(campaigns.files.count) campaign file\(campaigns.files.count == 1 ? "" : "s") and \(locales.entries.count) locales (now \(reference))\n")
        if errors > 0 { throw ExitCode(1) }
    }

    func referenceTime() throws -> Timestamp {
        guard let now else {
            // Today, from midnight UTC: the report does not change over the day.
            let day: Int64 = 86_400_000
            return Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) / day * day)
        }
        let text = now.count == 10 ? now + "T00:00:00Z" : now
        if case .time(let t, _) = Timestamp.parseRFC3339(text) { return t }
        throw ValidationError("--now \(now) is not a date; expected RFC 3339 (2026-06-05T12:00:00Z) or YYYY-MM-DD")
    }
}
