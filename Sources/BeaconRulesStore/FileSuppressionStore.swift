public import BeaconRules
import Foundation

/// Suppression state kept in a file between runs (`replay --state FILE`).
///
/// The whole state is held in memory and written back with write-to-temporary, fsync, rename,
/// so a crash leaves either the old file or the new one, never a torn one.
public struct FileSuppressionStore: SuppressionStore {
    public let path: String
    public private(set) var memory: InMemorySuppressionStore

    static let header = #"{"format":"beaconrules-state","version":1}"#

    /// Opens the state at `path`; a missing file is an empty state.
    public init(path: String) throws(StoreError) {
        self.path = path
        memory = InMemorySuppressionStore()
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(path: path, line: nil, message: "cannot read the state file")
        }
        let text = String(decoding: data, as: UTF8.self)
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            if line.isEmpty { continue }
            if number == 1 {
                guard line == Self.header else {
                    throw StoreError(path: path, line: 1, message: "not a beaconrules state file (expected the header \(Self.header))")
                }
                continue
            }
            let value: JSONValue
            do { value = try JSONParser.parse(String(line)) } catch {
                throw StoreError(path: path, line: number, message: "damaged entry: \(error.message)")
            }
            guard let device = value["device"]?.stringValue, let campaign = value["campaign"]?.stringValue,
                  let time = value["time"]?.integerValue else {
                throw StoreError(path: path, line: number, message: "damaged entry: expected {\"device\", \"campaign\", \"time\"}")
            }
            memory.recordFiring(device: device, campaign: CampaignID(canonical: campaign), at: Timestamp(milliseconds: time))
        }
    }

    public func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        memory.lastFiring(device: device, campaign: campaign)
    }

    public mutating func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        memory.recordFiring(device: device, campaign: campaign, at: time)
    }

    /// Writes the state atomically.
    public func save() throws(StoreError) {
        var w = JSONWriter(capacity: 64 + memory.count * 80)
        w.raw(Self.header)
        w.raw("\n")
        for entry in memory.entries {
            w.raw("{\"device\":"); w.string(entry.device)
            w.raw(",\"campaign\":"); w.string(entry.campaign.canonical)
            w.raw(",\"time\":"); w.integer(entry.time.milliseconds)
            w.raw("}\n")
        }
        try AtomicFile.write(w.bytes, to: path)
    }
}

/// A state file that cannot be read or written: which file, which line, what went wrong.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
}
