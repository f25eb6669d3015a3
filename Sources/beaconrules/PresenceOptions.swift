import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import Foundation

/// The input formats `replay` and `timeline` read.
enum InputFormat: String, ExpressibleByArgument, CaseIterable {
    /// SPEC section 1 and 7: one JSON object per line.
    case jsonl
    /// Recorded iBeacon scans (as in Tests/Fixtures/starksm64): back-to-back JSON objects, gzip or not.
    case starksm64
}

/// `--exclusive-zones`: who is in one room at a time, or `off` (every pair on its own).
enum ExclusiveZonesChoice: String, ExpressibleByArgument, CaseIterable {
    case beacon, device, off
}

/// The presence layer's options, shared by `replay`, `timeline`, `presence-score` and `serve`.
struct PresenceOptions: ParsableArguments {
    @Option(name: .customLong("input-format"), help: ArgumentHelp("jsonl (events, one JSON object per line) or starksm64 (recorded scans, gzip or plain; the scanner is the device).", valueName: "format"))
    var inputFormat: InputFormat = .jsonl

    @Flag(name: .customLong("presence"), help: "Flicker control for given enter/exit events: exits held until confirmed, re-enters within the exit timeout are one stay. On by default with sightings input, --presence-settings, or campaigns that use dwell.")
    var presence = false

    @Option(name: .customLong("presence-settings"), help: ArgumentHelp("A JSON file of presence settings (docs/presence.md).", valueName: "file"))
    var settingsFile: String?

    @Option(name: .customLong("exit-timeout"), help: ArgumentHelp("Seconds without a qualifying sighting (or re-enter) that confirm an exit (default \(PresenceSettings().exitTimeoutMilliseconds / 1000)).", valueName: "seconds"))
    var exitTimeout: Double?

    @Option(name: .customLong("max-lateness"), help: ArgumentHelp("Seconds an event may arrive behind the newest event time and still be used (default \(PresenceSettings().maxLatenessMilliseconds / 1000)).", valueName: "seconds"))
    var maxLateness: Double?

    @Option(name: .customLong("enter-readings"), help: ArgumentHelp("Readings that must reach the enter threshold within --enter-window before a stay starts (default \(PresenceSettings().enterReadings)).", valueName: "count"))
    var enterReadings: Int?

    @Option(name: .customLong("enter-window"), help: ArgumentHelp("Seconds within which --enter-readings readings must reach the enter threshold (default \(PresenceSettings().enterWindowMilliseconds / 1000)).", valueName: "seconds"))
    var enterWindow: Double?

    @Option(name: .customLong("exclusive-zones"), help: ArgumentHelp("beacon, device or off: a subject is in one room at a time, the strongest (docs/presence.md). Default: beacon with --input-format starksm64, else off (or as the settings file says).", valueName: "subject"))
    var exclusiveZones: ExclusiveZonesChoice?

    /// The settings for this run, or exit 2 naming the file and what was wrong.
    func settings(campaigns: CampaignSet) throws -> PresenceSettings {
        var settings = PresenceSettings()
        if let settingsFile {
            guard let data = FileManager.default.contents(atPath: settingsFile) else {
                StandardError.write("beaconrules: \(settingsFile): cannot read the presence settings file\n")
                throw ExitCode(2)
            }
            do {
                // Recorded scans are fixed scanners hearing carried beacons: the beacon is in one room.
                let subject: PresenceSubject? = inputFormat == .starksm64 ? .beacon : nil
                settings = try PresenceSettings(json: try JSONParser.parse([UInt8](data)), file: settingsFile, exclusiveZonesByDefault: subject)
            } catch let error as JSONSyntaxError {
                StandardError.write("beaconrules: \(settingsFile):\(error.line):\(error.column): error: \(error.message)\n")
                throw ExitCode(2)
            } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
        } else {
            settings.flickerControl = presence || inputFormat == .starksm64 || campaigns.hasDwell
            if inputFormat == .starksm64 { settings.exclusiveZones = .beacon }
        }
        switch exclusiveZones {
        case .beacon?: settings.exclusiveZones = .beacon
        case .device?: settings.exclusiveZones = .device
        case .off?: settings.exclusiveZones = nil
        case nil: break
        }
        if presence { settings.flickerControl = true }
        if let exitTimeout {
            guard exitTimeout >= 1, exitTimeout < 1e9 else { throw ValidationError("--exit-timeout: expected seconds >= 1, found \(exitTimeout)") }
            settings.exitTimeoutMilliseconds = Int64((exitTimeout * 1000).rounded())
        }
        if let maxLateness {
            guard maxLateness >= 0, maxLateness < 1e9 else { throw ValidationError("--max-lateness: expected seconds >= 0, found \(maxLateness)") }
            settings.maxLatenessMilliseconds = Int64((maxLateness * 1000).rounded())
        }
        if let enterReadings {
            guard (1...1000).contains(enterReadings) else { throw ValidationError("--enter-readings: expected an integer 1...1000, found \(enterReadings)") }
            settings.enterReadings = enterReadings
        }
        if let enterWindow {
            guard enterWindow >= 0, enterWindow < 1e9 else { throw ValidationError("--enter-window: expected seconds >= 0, found \(enterWindow)") }
            settings.enterWindowMilliseconds = Int64((enterWindow * 1000).rounded())
        }
        return settings
    }
}
