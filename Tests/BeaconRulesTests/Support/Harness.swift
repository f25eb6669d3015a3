@testable import BeaconRules
import CampaignFiles
import Foundation

/// Builds engines from inline campaign JSON or files, and runs events through them.
enum Harness {
    static let locales: LocaleTable = {
        let (table, diagnostics) = LocaleFiles.load(directory: Paths.locales)
        precondition(diagnostics.isEmpty, "shipped Locales must load: \(diagnostics)")
        return table
    }()

    /// Campaigns decoded from JSON text (any of the three shapes); fails the test on any error.
    static func campaigns(_ json: String, file: String = "inline.json") throws -> [Campaign] {
        var decoder = CampaignDecoder(file: file)
        let campaigns = decoder.decode(document: try JSONParser.parse(json))
        let errors = decoder.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty { throw CampaignLoadError(diagnostics: errors) }
        return campaigns
    }

    static func engine(_ json: String) throws -> RulesEngine<InMemorySuppressionStore> {
        RulesEngine(campaigns: CampaignSet(try campaigns(json)), locales: locales, store: InMemorySuppressionStore())
    }

    static func engine(paths: [String]) throws -> RulesEngine<InMemorySuppressionStore> {
        let catalog = CampaignFileReader().load(paths: paths)
        if !catalog.errors.isEmpty { throw CampaignLoadError(diagnostics: catalog.errors) }
        return RulesEngine(campaigns: CampaignSet(catalog.campaigns), locales: locales, store: InMemorySuppressionStore())
    }

    static func event(
        _ kind: EventKind = .enter, beacon: String, at time: String, device: String = "d-1",
        id: String = "e-1", locale: String? = nil
    ) -> BeaconEvent {
        guard case .time(let t, _) = Timestamp.parseRFC3339(time) else { fatalError("bad time \(time)") }
        return BeaconEvent(id: id, device: device, kind: kind, beacon: BeaconID(pid: beacon)!, time: t, locale: locale)
    }

    /// Replays JSON lines through the engine as `replay` does: records as JSON lines, errors as messages by line.
    static func replay<S: SuppressionStore>(_ text: String, source: String, engine: inout RulesEngine<S>) -> (records: String, errors: [Int: String]) {
        replay(bytes: Array(text.utf8), source: source, engine: &engine)
    }

    /// Bytes, so that fixtures with invalid UTF-8 reach the parser as they are. Lines go through the
    /// presence engine with its default for plain enter/exit input (no flicker control), as `replay` does.
    static func replay<S: SuppressionStore>(bytes text: [UInt8], source: String, engine: inout RulesEngine<S>) -> (records: String, errors: [Int: String]) {
        var writer = JSONWriter()
        var errors: [Int: String] = [:]
        var settings = PresenceSettings()
        settings.flickerControl = false
        var presence = PresenceEngine(engine: engine, settings: settings)
        for (offset, line) in text.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let bytes = Array(line)
            bytes.withUnsafeBufferPointer { buffer in
                do {
                    try presence.replay(line: buffer, fallbackID: "\(source):\(offset + 1)", into: &writer)
                } catch let error as EventError {
                    errors[offset + 1] = error.description
                } catch {
                    errors[offset + 1] = "\(error)"
                }
            }
        }
        presence.finish(into: &writer)
        engine = presence.engine
        return (String(decoding: writer.bytes, as: UTF8.self), errors)
    }
}

extension Timestamp {
    /// For tests: a timestamp from RFC 3339 text.
    static func at(_ text: String) -> Timestamp {
        guard case .time(let t, _) = parseRFC3339(text) else { fatalError("bad time \(text)") }
        return t
    }
}
