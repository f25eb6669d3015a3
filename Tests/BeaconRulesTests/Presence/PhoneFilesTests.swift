@testable import BeaconRules
import Foundation
import Testing

/// Issue 33: sightings recorded as people have them, one file per phone or one file grouped by
/// device (`Tests/Fixtures/presence/phone-*.jsonl`: three phones, two minutes of sightings each over
/// the same two minutes of 2026-06-05, every sighting with its own id). Each phone decides as it
/// would alone: lateness is measured per device.
@Suite("Presence: one file per phone")
struct PhoneFilesTests {
    static let phones = ["phone-a", "phone-b", "phone-c"]

    func replay(_ files: [String]) throws -> CommandResult {
        try CommandRunner.run(["replay"] + files.map { Paths.fixture("presence/" + $0 + ".jsonl") }
            + ["--campaigns", Paths.campaigns, "--locales", Paths.locales])
    }

    /// The record lines of one device, in the order they were written.
    func records(of device: String, in output: String) throws -> [String] {
        try output.split(separator: "\n").map(String.init).filter { line in
            try JSONParser.parse(line)["device"]?.stringValue == device
        }
    }

    /// What each phone gives replayed alone: records, and no line rejected.
    func alone() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for phone in Self.phones {
            let run = try replay([phone])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(phone): \(run.stderr)")
            result[phone] = try records(of: phone, in: run.stdout)
        }
        return result
    }

    @Test func eachPhoneAloneEntersTheEntranceAndGetsItsWelcome() throws {
        for (phone, records) in try alone() {
            #expect(records.contains { $0.contains(#""campaign":"museum-welcome""#) }, "\(phone): \(records)")
        }
    }

    /// `files` replayed together: no line rejected, and each phone's records exactly as alone.
    func expectEachPhoneAsAlone(_ files: [String]) throws {
        let run = try replay(files)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        for (phone, records) in try alone() {
            #expect(try self.records(of: phone, in: run.stdout) == records, "\(phone)")
        }
    }

    @Test func threePhonesFilesGivenTogetherGiveEachPhoneItsRecordsAsAlone() throws {
        try expectEachPhoneAsAlone(Self.phones)
    }

    @Test func oneFileGroupedByDeviceGivesEachPhoneItsRecordsAsAlone() throws {
        try expectEachPhoneAsAlone(["phones-by-device"])
    }

    @Test func aLoneStrongReadingFollowedByWeakOnesMakesNoStay() throws {
        // One -60 dBm reading, then three minutes of -97 dBm readings, one a second.
        let run = try replay(["lone-spike"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
    }
}
