package import BeaconRules

/// The benchmark workload: a venue chain's campaigns and a day of beacon events, from one seed.
///
/// Each of `uuids` proximity UUIDs is a venue with 10 majors x 100 minors of beacons. Campaigns sit on
/// 1-3 beacons of one venue (5% on the whole venue's UUID instead), 30% have timeframes during the
/// day, suppression is mixed, and 70% carry localized `onEnter`/`onExit` blocks in two languages.
/// Devices shop mostly at a home venue (90% of their events), walking enter/exit pairs.
package struct WorkloadSpec: Sendable {
    package var campaigns = 10_000
    package var uuids = 50
    package var events = 1_000_000
    package var devices = 100_000
    package var locales = ["de-DE", "fr-FR", "en-US"]
    package var seed: UInt64 = 20_260_605
    /// The first event's time; events advance through one day.
    package var start = Timestamp(milliseconds: 1_780_639_200_000)
    /// Beacons per venue (at most `majors` x `minors`): fewer put more campaigns on each beacon,
    /// so that an event fires more records (`beaconrules-bench --output-heavy`).
    package var beaconsPerVenue = Self.majors * Self.minors

    package init() {}

    package init(campaigns: Int, uuids: Int = 50, events: Int, devices: Int, seed: UInt64 = 20_260_605) {
        self.campaigns = campaigns
        self.uuids = uuids
        self.events = events
        self.devices = devices
        self.seed = seed
    }

    package static let majors = 10
    package static let minors = 100
    static let day: Int64 = 16 * 3_600_000

    func venueUUID(_ venue: Int) -> ProximityUUID {
        var random = SeededRandom(seed: seed ^ 0xA5A5_0000 ^ UInt64(venue))
        return ProximityUUID(high: random.next(), low: random.next())
    }

    func beacon(venue: Int, index: Int) -> BeaconID {
        BeaconID(uuid: venueUUID(venue), major: UInt16(1 + index / Self.minors), minor: UInt16(1 + index % Self.minors))
    }
}

extension WorkloadSpec {
    /// The campaigns as one Sensorberg array of actions.
    package func campaignsJSON() -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var w = JSONWriter(capacity: campaigns * 700)
        w.raw("[\n")
        for i in 0..<campaigns {
            if i > 0 { w.raw(",\n") }
            let venue = random.below(uuids)
            w.raw("{\"eid\":\"")
            w.rawText(String(random.next(), radix: 16) + String(random.next(), radix: 16))
            w.rawText("\",\"name\":\"campaign \(i)\"")
            let trigger = [1, 1, 1, 1, 2, 2, 2, 3, 3, 3][random.below(10)]
            w.rawText(",\"trigger\":\(trigger)")
            let type = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4][random.below(20)]
            w.rawText(",\"type\":\(type)")
            w.raw(",\"beacons\":[")
            let venueWide = random.chance(5)
            if venueWide {
                w.rawText("\"\(venueUUID(venue))\"")
            } else {
                for k in 0..<(1 + random.below(3)) {
                    if k > 0 { w.raw(",") }
                    w.rawText("\"\(beacon(venue: venue, index: random.below(beaconsPerVenue)))\"")
                }
            }
            w.raw("]")
            if random.chance(30) {
                w.raw(",\"timeframes\":[")
                for k in 0..<(1 + random.below(3)) {
                    if k > 0 { w.raw(",") }
                    let from = start.milliseconds + Int64(random.below(Int(Self.day)))
                    let to = from + Int64(2 + random.below(5)) * 3_600_000
                    w.rawText("{\"start\":\"\(Timestamp(milliseconds: from))\",\"end\":\"\(Timestamp(milliseconds: to))\"}")
                }
                w.raw("]")
            }
            // Venue-wide (UUID-only) campaigns are never unsuppressed: nobody sends one on every transition.
            switch venueWide ? 35 + random.below(65) : random.below(100) {
            case 0..<35: w.raw(",\"suppressionTime\":-1")
            case 35..<50: w.raw(",\"suppressionTime\":0")
            case 50..<85: w.rawText(",\"suppressionTime\":\(300 * (1 + random.below(288)))")
            default: w.raw(",\"sendOnlyOnce\":true")
            }
            if random.chance(20) { w.rawText(",\"delay\":\(60 * (1 + random.below(10)))") }
            w.rawText(",\"content\":{\"subject\":\"Offer \(i)\",\"body\":\"Something good at venue \(venue)\",\"url\":\"https://venue\(venue).example/offer/\(i)\",\"payload\":")
            if random.chance(70) {
                w.rawText("{\"offer\":\(i),\"onEnter\":{\"confirmAction\":\"open\",\"de\":{\"title\":\"Angebot \(i)\",\"message\":\"Etwas Gutes in Filiale \(venue)\",\"okButtonTitle\":\"Ansehen\"},")
                w.rawText("\"en\":{\"title\":\"Offer \(i)\",\"message\":\"Something good at venue \(venue)\"}},")
                w.raw("\"onExit\":{\"confirmAction\":\"share\",\"actInForeground\":false,\"de\":{\"title\":\"Danke!\",\"message\":\"Bis bald\"},\"en\":{\"title\":\"Thanks!\",\"message\":\"See you soon\"}}}")
            } else if random.chance(50) {
                w.rawText("{\"offer\":\(i)}")
            } else {
                w.raw("null")
            }
            w.raw("}}")
        }
        w.raw("\n]\n")
        return w.bytes
    }

    /// The events as JSON lines, handed out in blocks of about `blockSize` bytes.
    package func generateEvents(blockSize: Int = 1 << 20, _ sink: ([UInt8]) -> Void) {
        var random = SeededRandom(seed: seed &+ 1)
        // Where each device is: nil outside, else the beacon it entered.
        var inside = [Int32](repeating: -1, count: devices)
        var w = JSONWriter(capacity: blockSize + 512)
        let step = max(1, Self.day / Int64(max(1, events)))
        for i in 0..<events {
            let device = random.below(devices)
            let home = device % uuids
            w.rawText("{\"id\":\"e-\(i)\",\"device\":\"dev-\(device)\",\"type\":")
            let beaconIndex: Int
            let venue: Int
            if inside[device] >= 0 {
                beaconIndex = Int(inside[device]) % beaconsPerVenue
                venue = Int(inside[device]) / beaconsPerVenue
                inside[device] = -1
                w.raw("\"exit\"")
            } else {
                venue = random.chance(90) ? home : random.below(uuids)
                beaconIndex = random.below(beaconsPerVenue)
                inside[device] = Int32(venue * beaconsPerVenue + beaconIndex)
                w.raw("\"enter\"")
            }
            w.rawText(",\"beacon\":\"\(beacon(venue: venue, index: beaconIndex))\",\"time\":\"")
            Timestamp(milliseconds: start.milliseconds + Int64(i) * step + Int64(random.below(1000))).appendRFC3339(to: &w.bytes)
            w.rawText("\",\"locale\":\"\(locales[device % locales.count])\"}\n")
            if w.bytes.count >= blockSize {
                sink(w.bytes)
                w.bytes.removeAll(keepingCapacity: true)
            }
        }
        if !w.bytes.isEmpty { sink(w.bytes) }
    }
}
