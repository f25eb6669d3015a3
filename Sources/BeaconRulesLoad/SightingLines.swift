#if canImport(Glibc)
import Glibc
#endif

/// Raw sightings (SPEC section 7) for one connection, like `scripts/soak.py --sightings`: each
/// device heard five times in a row at one beacon (a stay), the devices in a scattered order, so
/// the presence layer sees a (device, beacon) pair per visit.
///
/// A server refuses sightings older than its lateness behind the newest it has seen, so a line's
/// time is the wall clock when it is sent: rendered as 13 zeros and filled in by the sender
/// (`WallClockStamp`) just before the line's first byte goes out.
struct SightingLines: Sendable {
    let run: String
    let connection: Int
    let devices: Int

    static let beacons = (1...4).map { "b9407f30f5f8466eaff925556b57fe6d001000000\($0)" }
    static let locales = ["de-DE", "en", "fr-FR", "pt-BR"]
    /// Readings in a row of one device at one beacon.
    static let readingsPerVisit = 5

    /// The line `n`, its time left as 13 zeros, and where those zeros start in it.
    func line(_ n: Int) -> (text: String, timeAt: Int) {
        let visit = n / Self.readingsPerVisit
        let device = (visit &* 7919) % devices
        let head = "{\"id\":\"\(run)-\(connection)-\(n)\",\"type\":\"sighting\",\"device\":\"sight-\(run)-\(connection)-\(device)\","
            + "\"beacon\":\"\(Self.beacons[visit % 4])\",\"rssi\":-60,\"time\":"
        return (head + "0000000000000,\"locale\":\"\(Self.locales[device % 4])\"}\n", head.utf8.count)
    }

    func render(count: Int) -> RenderedLines {
        var lines = RenderedLines(capacity: count, bytesPerLine: 190, stampsTime: true)
        for n in 0..<count {
            let (text, timeAt) = line(n)
            lines.timeFields.append(lines.bytes.count + timeAt)
            lines.append(text)
        }
        return lines
    }
}

/// Writes the wall clock's milliseconds since 1970 as 13 ASCII digits.
enum WallClockStamp {
    static let digits = 13

    static func milliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }

    static func write(_ milliseconds: UInt64, to field: UnsafeMutablePointer<UInt8>) {
        var rest = milliseconds
        for i in stride(from: digits - 1, through: 0, by: -1) {
            field[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }
}
