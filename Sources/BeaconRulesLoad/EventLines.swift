/// Event lines for one connection: its own devices, moving between the four museum beacons, with
/// ids unique to the run so that they are processed, not answered from the log.
///
/// All of a connection's lines are rendered into one byte array before the clock starts, so that
/// sending costs the client a `write` and nothing else.
struct EventLines: Sendable {
    let run: String
    let connection: Int
    let devices: Int

    func line(_ n: Int) -> String {
        let device = n % devices
        let step = n / devices
        let beacon = (step / 2 + device) % 4 + 1
        let type = step % 2 == 0 ? "enter" : "exit"
        // 2026-06-05T06:00Z plus 7 minutes per step: through the day's time frames.
        let time = 1_780_639_200_000 + Int64(step) * 420_000
        return "{\"id\":\"\(run)-\(connection)-\(n)\",\"device\":\"load-\(run)-\(connection)-\(device)\",\"type\":\"\(type)\","
            + "\"beacon\":\"b9407f30f5f8466eaff925556b57fe6d001000000\(beacon)\",\"time\":\(time),\"locale\":\"de-DE\"}\n"
    }

    /// The first `count` lines as one byte array, and where each line ends (just past its `\n`).
    func render(count: Int) -> RenderedLines {
        var lines = RenderedLines(capacity: count, bytesPerLine: 200, stampsTime: false)
        for n in 0..<count { lines.append(line(n)) }
        return lines
    }
}
