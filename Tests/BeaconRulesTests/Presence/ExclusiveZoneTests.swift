@testable import BeaconRules
import Foundation
import Testing

/// Exclusive zones (SPEC section 7): a subject is in one room at a time, the strongest.
@Suite("Presence: exclusive zones")
struct ExclusiveZoneTests {
    typealias R = PresenceRun
    /// Three beacons of three adjacent rooms, and a notification campaign per room.
    static let rooms = (1...3).map { "b9407f30f5f8466eaff925556b57fe6d001000000\($0)" }
    static let campaigns = "[" + (1...3).map { n in
        #"{"eid":"room-\#(n)","type":1,"trigger":1,"beacons":["\#(rooms[n - 1])"],"content":{"subject":"Room \#(n)","body":"Welcome to room \#(n)."}}"#
    }.joined(separator: ",") + "]"

    static func sighting(_ seconds: Double, room: Int, rssi: Int, device: String = "phone-1") -> String {
        let ms = 1_462_896_000_000 + Int64(seconds * 1000)
        return #"{"type":"sighting","device":"\#(device)","beacon":"\#(rooms[room - 1])","rssi":\#(rssi),"time":\#(ms)}"#
    }

    /// A phone in room 2 for ten minutes hears all three beacons about once a second: its own at
    /// -74 dBm, the neighbours' through the walls at -81, each reading swinging by up to ±9 dB
    /// (so single neighbour readings are often the loudest) with drop-outs of a few seconds.
    static func phoneInTheMiddleRoom() -> [String] {
        var state: UInt64 = 2016
        func swing() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % 19) - 9
        }
        var lines: [String] = []
        for second in 0..<600 {
            for room in 1...3 where (second + room * 7) % 23 >= 3 {
                let level = room == 2 ? -74 : -81
                lines.append(sighting(Double(second) + Double(room) * 0.3, room: room, rssi: level + swing()))
            }
        }
        return lines
    }

    @Test func aPhoneHearingThreeRoomsFiresOnlyTheCampaignOfTheRoomItIsIn() throws {
        let exclusive = try R(campaigns: Self.campaigns, lines: Self.phoneInTheMiddleRoom()) { $0.exclusiveZones = .device }
        #expect(exclusive.errors.isEmpty)
        #expect(exclusive.field("campaign", of: exclusive.kind("notification")) == ["room-2"])
        #expect(exclusive.enters == 1 && exclusive.exits == 1)
        // Per pair, the same readings put the phone in all three rooms at once.
        let perPair = try R(campaigns: Self.campaigns, lines: Self.phoneInTheMiddleRoom())
        #expect(Set(perPair.field("campaign", of: perPair.kind("notification"))) == ["room-1", "room-2", "room-3"])
    }

    @Test func theSubjectMovesWhenAnotherRoomLeadsByTheMarginForTheHoldTime() throws {
        // Room 1 at -70 for a minute; then room 2 at -68 (2 dB ahead: less than the 3 dB margin)
        // for a minute; then room 2 at -60 (10 dB ahead) for 1 s, which the trimmed mean of the
        // window drops; then for good.
        var lines: [String] = []
        var t = 0.0
        func both(_ r1: Int, _ r2: Int, for seconds: Double) {
            let end = t + seconds
            while t < end {
                lines.append(Self.sighting(t, room: 1, rssi: r1))
                lines.append(Self.sighting(t + 0.1, room: 2, rssi: r2))
                t += 0.5
            }
        }
        both(-70, -95, for: 60)
        both(-70, -68, for: 60)
        both(-70, -60, for: 1)
        both(-70, -68, for: 22)
        both(-70, -60, for: 30)
        let run = try R(campaigns: Self.campaigns, lines: lines) { $0.exclusiveZones = .device }
        let changes = run.log.map { output -> String in
            switch output {
            case .enter(let e): "enter \(e.beacon == BeaconID(pid: Self.rooms[0])! ? 1 : 2) \(e.time.milliseconds / 1000 - 1_462_896_000)"
            case .exit(let e, _): "exit \(e.beacon == BeaconID(pid: Self.rooms[0])! ? 1 : 2) \(e.time.milliseconds / 1000 - 1_462_896_000)"
            case .dwell: "dwell"
            }
        }
        // Placed one smoothing window (10 s) after room 1's gate opened on its third reading (1 s);
        // the move comes once room 2's smoothed signal
        // has led by 3 dB for 5 s (the window lags the step by a few seconds); the room left
        // exits at the move, not after the exit timeout; the last one 30 s after the last reading (172.6 s).
        #expect(changes.count == 4, "\(changes)")
        #expect(changes.first == "enter 1 11")
        let move = try #require(changes.dropFirst().first.flatMap { Int($0.split(separator: " ")[2]) })
        #expect((146...155).contains(move), "\(changes)")
        #expect(Array(changes.dropFirst()) == ["exit 1 \(move)", "enter 2 \(move)", "exit 2 202"], "\(changes)")
    }

    @Test func aDropOutOfTheRoomTheSubjectIsInDoesNotMoveItToAWeakerRoom() throws {
        // Five minutes: room 1 at -80 dBm with a 20 s drop-out every 40 s (shorter than the exit
        // timeout), room 2 heard throughout at -88. The subject stays in room 1: one stay, where
        // a silent room 1 counted as no signal at all would give room 2 a stay in every drop-out.
        var lines: [String] = []
        for tenth in stride(from: 0, to: 3000, by: 5) {
            let t = Double(tenth) / 10
            if t.truncatingRemainder(dividingBy: 40) < 20 { lines.append(Self.sighting(t, room: 1, rssi: -80)) }
            lines.append(Self.sighting(t + 0.2, room: 2, rssi: -88))
        }
        let run = try R(campaigns: Self.campaigns, lines: lines) { $0.exclusiveZones = .device }
        #expect(run.field("campaign", of: run.kind("notification")) == ["room-1"])
        #expect(run.enters == 1 && run.exits == 1)
    }

    @Test func settingsFileSetsTheSubjectMarginAndHoldAndNamesMistakes() throws {
        let json = try JSONParser.parse(#"{"exclusiveZones": "beacon", "switchMargin": 4.5, "switchHold": 8}"#)
        let settings = try PresenceSettings(json: json, file: "p.json")
        #expect(settings.exclusiveZones == .beacon && settings.switchMargin == 4.5 && settings.switchHoldMilliseconds == 8_000)
        #expect(try PresenceSettings(json: JSONParser.parse(#"{"exclusiveZones": false}"#), file: "p.json").exclusiveZones == nil)
        #expect(PresenceSettings().exclusiveZones == nil)
        // Recorded scans default to the beacon; the gates then default to -95/-100, so a lower
        // enterRSSI alone is no contradiction.
        let scans = try PresenceSettings(json: JSONParser.parse(#"{"enterRSSI": -97}"#), file: "p.json", exclusiveZonesByDefault: .beacon)
        #expect(scans.exclusiveZones == .beacon && scans.enterRSSI == -97 && scans.exitRSSI == -100)
        #expect(throws: PresenceSettingsError.self) { try PresenceSettings(json: JSONParser.parse(#"{"exclusiveZones": "room"}"#), file: "p.json") }
        do { _ = try PresenceSettings(json: JSONParser.parse("{\n \"exclusiveZones\": \"room\"}"), file: "p.json") } catch {
            #expect("\(error)".hasPrefix("p.json:2:2: `exclusiveZones`: expected \"beacon\""))
        }
    }

    @Test func aRestartKeepsTheSubjectInItsRoom() throws {
        // A server restarts from its snapshot in the middle of the phone's stay: the hearing gates
        // start empty (a subject not yet placed would wait one more smoothing window), but a placed
        // subject is still in room 2, its stay goes on and nothing else fires.
        var settings = PresenceSettings()
        settings.exclusiveZones = .device
        let lines = Self.phoneInTheMiddleRoom()
        func run(splitAt split: Int?) throws -> String {
            try PresenceRun.replayRestarting(campaigns: Self.campaigns, settings: settings, lines: lines, splitAt: split)
        }
        let whole = try run(splitAt: nil)
        #expect(whole.contains("room-2") && !whole.contains("room-1") && !whole.contains("room-3"))
        for split in [200, 900] { #expect(try run(splitAt: split) == whole, "split at \(split)") }
    }
}
