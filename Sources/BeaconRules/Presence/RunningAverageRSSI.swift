/// The RSSI filter: a running average over a time window with the top and bottom tenth of the
/// readings dropped, as AltBeacon's `RunningAverageRssiFilter` does.
///
/// Why this and not an ARMA filter: an ARMA filter's coefficient acts per sample, so its time
/// constant depends on how often the beacon is heard, and scanners report anything from 10 Hz to one
/// reading every few seconds with drop-outs. A window over time means the same thing at any rate,
/// forgets stale readings by construction, and the trimmed mean ignores the single 10-20 dB swings
/// the recorded traces are full of.
package struct RunningAverageRSSI: Sendable, Equatable {
    /// (time ms, dBm) in arrival order; the front is dropped as it leaves the window.
    var samples: [(time: Int64, rssi: Int)] = []
    var head = 0
    package let windowMilliseconds: Int64

    package init(windowMilliseconds: Int64) { self.windowMilliseconds = windowMilliseconds }

    package static func == (a: Self, b: Self) -> Bool {
        a.windowMilliseconds == b.windowMilliseconds && a.count == b.count && a.value == b.value
    }

    /// Readings in the window.
    package var count: Int { samples.count - head }

    /// Adds a reading at `time` (non-decreasing: the presence layer orders its input first).
    package mutating func add(rssi: Int, at time: Int64) {
        samples.append((time, rssi))
        while head < samples.count - 1 && samples[head].time < time - windowMilliseconds { head += 1 }
        // Compact now and then so memory follows the window, not the stream.
        if head > 64 && head * 2 > samples.count {
            samples.removeFirst(head)
            head = 0
        }
    }

    /// The smoothed RSSI in dBm, nil before any reading.
    package var value: Double? { mean(from: head) }

    /// The smoothed RSSI as of `time` (at or after the last reading): only the readings of the
    /// window that ends at `time` count, so a receiver that stopped hearing the beacon has no value
    /// rather than a stale one. nil when it heard nothing in that window.
    package func value(at time: Int64) -> Double? {
        var first = head
        while first < samples.count && samples[first].time < time - windowMilliseconds { first += 1 }
        return mean(from: first)
    }

    /// What a receiver that fell silent last heard: the smoothed value as of its last reading, or
    /// the median of its last three readings if that is lower (a signal that faded before it went
    /// silent is taken where it ended, not at the average of the fade). nil before any reading.
    package var lastHeard: Double? {
        guard let smoothed = value else { return nil }
        let recent = samples[Swift.max(head, samples.count - 3)...].map(\.rssi).sorted()
        return Swift.min(smoothed, Double(recent[recent.count / 2]))
    }

    private func mean(from first: Int) -> Double? {
        let n = samples.count - first
        guard n > 0 else { return nil }
        if n < 3 {
            var sum = 0
            for i in first..<samples.count { sum += samples[i].rssi }
            return Double(sum) / Double(n)
        }
        var values: [Int] = []
        values.reserveCapacity(n)
        for i in first..<samples.count { values.append(samples[i].rssi) }
        values.sort()
        let trim = n / 10
        var sum = 0
        for v in values[trim..<(n - trim)] { sum += v }
        return Double(sum) / Double(n - 2 * trim)
    }
}
