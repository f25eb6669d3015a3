@testable import BeaconRules

/// Runs JSON lines through a `PresenceEngine` as `replay` does, then finishes the input.
struct PresenceRun {
    var records: [JSONValue] = []
    var errors: [Int: String] = [:]
    var log: [PresenceOutput] = []

    /// Records of one kind (`notification`, `silent`, `withdrawn`).
    func kind(_ kind: String) -> [JSONValue] { records.filter { $0["kind"]?.stringValue == kind } }
    func field(_ name: String, of list: [JSONValue]) -> [String] { list.compactMap { $0[name]?.stringValue } }
    var enters: Int { log.filter { if case .enter = $0 { true } else { false } }.count }
    var exits: Int { log.filter { if case .exit = $0 { true } else { false } }.count }

    static let pid = "7367672374000000ffff0000ffff00070733107331"

    /// `campaigns`: campaign JSON; `lines`: event lines; `settings` changed by `configure`.
    init(campaigns: String, lines: [String], configure: (inout PresenceSettings) -> Void = { _ in }) throws {
        var settings = PresenceSettings()
        configure(&settings)
        var engine = PresenceEngine(engine: try Harness.engine(campaigns), settings: settings)
        engine.keepsLog = true
        var writer = JSONWriter()
        for (i, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                do { try engine.replay(line: buffer, fallbackID: "t:\(i + 1)", into: &writer) } catch {
                    errors[i + 1] = "\(error)"
                }
            }
        }
        engine.finish(into: &writer)
        log = engine.log
        records = try writer.bytes.split(separator: 0x0A).map { try JSONParser.parse(Array($0)) }
    }

    /// A given event line for the test beacon.
    static func given(_ type: String, _ time: String, id: String, device: String = "d-1") -> String {
        #"{"id":"\#(id)","device":"\#(device)","type":"\#(type)","beacon":"\#(pid)","time":"\#(time)"}"#
    }

    /// A sighting line for the test beacon at `seconds` after 2016-05-10T16:00:00Z.
    static func sighting(_ seconds: Double, rssi: Int, device: String = "d-1") -> String {
        let ms = 1_462_896_000_000 + Int64(seconds * 1000)
        return #"{"type":"sighting","device":"\#(device)","beacon":"\#(pid)","rssi":\#(rssi),"time":\#(ms)}"#
    }
}

extension PresenceRun {
    /// Replays `lines` through a `PresenceEngine`, restarting it from its snapshot before line
    /// `split` (nil: no restart) as a server would; the records as text.
    static func replayRestarting(campaigns: String, settings: PresenceSettings, lines: [String], splitAt split: Int?) throws -> String {
        var engine = PresenceEngine(engine: try Harness.engine(campaigns), settings: settings)
        var writer = JSONWriter()
        for (i, line) in lines.enumerated() {
            if i == split {
                var fresh = PresenceEngine(engine: engine.engine, settings: settings)
                try fresh.restore(engine.snapshot())
                engine = fresh
            }
            _ = try Array(line.utf8).withUnsafeBufferPointer { try engine.replay(line: $0, fallbackID: "t:\(i)", into: &writer) }
        }
        engine.finish(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
