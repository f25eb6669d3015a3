package import BeaconRules
package import BeaconRulesService
import CampaignFiles
import CampaignLint
import Foundation

/// One app as the console works on it: its service (what the events API and `/try` answer), the
/// campaign files it was loaded from, and the snapshot its pages show. Saves run one at a time
/// through this actor: lint, write, reload, or refuse and leave the old set serving.
package actor ConsoleApp {
    package nonisolated let id: String
    package nonisolated let rules: RulesService
    package nonisolated let folders: CampaignFolders
    private var cached: ConsoleSnapshot?

    package init(id: String, rules: RulesService, folders: CampaignFolders) {
        self.id = id
        self.rules = rules
        self.folders = folders
    }

    /// The snapshot of what the service has loaded now (recomputed after any reload, also a
    /// SIGHUP's).
    package func snapshot() async -> ConsoleSnapshot {
        let load = await rules.loads
        if let cached, cached.load == load { return cached }
        let snapshot = ConsoleSnapshot(catalog: await rules.catalog, load: load, now: Self.now())
        cached = snapshot
        return snapshot
    }

    /// The diagnostics of `text` as the campaign file `file`: its loading errors, then lint's
    /// (did-you-mean included), as `beaconrules lint` prints them for that file.
    package func lint(_ text: String, as file: String) async -> [Diagnostic] {
        let locales = await rules.catalog.locales
        return Self.lint(text, as: file, locales: locales)
    }

    nonisolated static func lint(_ text: String, as file: String, locales: LocaleTable) -> [Diagnostic] {
        let read = CampaignFileReader.readJSON(path: file, bytes: Array(text.utf8))
        let found = read.diagnostics + CampaignLinter(now: now(), locales: locales).lint(read.campaigns)
        return found.sorted { ($0.location.line, $0.location.column ?? 0) < ($1.location.line, $1.location.column ?? 0) }
    }

    /// What a save did.
    package enum SaveOutcome: Sendable {
        /// Written and reloaded: the service answers with it from now on.
        case saved(file: String, warnings: [Diagnostic])
        /// Not written (or written back): the old set keeps serving.
        case refused([String])
    }

    /// Saves `text` as the file of campaign `eid`, then reloads the service from the files. A
    /// text with an error is not written; a set that does not load after the write is written
    /// back as it was, and the loaded set stays.
    package func save(eid: String, text: String) async -> SaveOutcome {
        let snapshot = await snapshot()
        guard let entry = snapshot.entry(eid: eid) else { return .refused(["no campaign \"\(eid)\" is loaded"]) }
        let path: String
        do { path = try folders.writable(entry.campaign.origin.file) } catch { return .refused(["\(error)"]) }
        let found = Self.lint(text, as: entry.campaign.origin.file, locales: snapshot.catalog.locales)
        let errors = found.filter { $0.severity == .error }
        guard errors.isEmpty else { return .refused(errors.map(\.description)) }
        guard let old = FileManager.default.contents(atPath: path) else { return .refused(["\(path): cannot read the file to replace"]) }
        do { try folders.write(Array(text.utf8), to: path) } catch { return .refused(["\(error)"]) }
        let catalog: RulesCatalog
        do throws(CampaignLoadError) {
            catalog = try RulesCatalog(campaigns: folders.paths.map(CampaignSource.path), locales: folders.locales.map(LocaleSource.folder) ?? LocaleSource.none)
        } catch {
            try? folders.write([UInt8](old), to: path)
            return .refused(error.diagnostics.map(\.description))
        }
        await rules.reload(catalog)
        return .saved(file: entry.campaign.origin.file, warnings: found)
    }

    /// The wall clock, for what is live and what lint calls the past.
    nonisolated static func now() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
