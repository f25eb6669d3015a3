package import BeaconRules
package import CoreMetrics
import NIOCore

/// Where `serve` listens, and the limits it keeps per connection.
package struct ServerConfiguration: Sendable {
    package var host: String
    /// 0 picks a free port; the bound one is reported through `onListening`.
    package var port: Int
    /// Needed to listen on anything but loopback.
    package var allowRemote: Bool
    /// The longest request line, in bytes (SPEC: 64 KiB).
    package var maximumLineLength: Int
    /// Lines of one connection read but not yet answered. A client that does not read its replies
    /// stops being read once this many are waiting, so it costs bounded memory.
    package var linesInFlight: Int
    /// How records are written in replies: SPEC section 3's records, or APNs payloads.
    package var format: OutputFormat = .records
    /// The presence layer's settings. Sightings always go through it; given enter/exit events only
    /// with `flickerControl` (off by default here, so plain streams are answered as before).
    package var presence: PresenceSettings = ServerConfiguration.plainPresence
    /// Where the server's metrics go (`beaconrules_events_total` and the others of
    /// docs/serve.md#metrics); by default nowhere.
    package var metrics: any MetricsFactory = NOOPMetricsHandler.instance
    /// How long answers, suppression state and deliveries are remembered (SPEC section 5).
    package var retention: Retention = .default
    /// Without a state file: the engine on a thread of its own, fed through a queue as with a
    /// state file, instead of on one of the event loops (the default, where that loop's
    /// connections call it with no hop; the two measured close to a tie on two cores, the event
    /// loop with less CPU an event). For measuring the two against each other
    /// (`serve --engine-thread`, hidden).
    package var engineThread = false

    /// Presence settings with flicker control off.
    package static var plainPresence: PresenceSettings {
        var settings = PresenceSettings()
        settings.flickerControl = false
        return settings
    }

    package init(host: String = "127.0.0.1", port: Int = 7700, allowRemote: Bool = false,
                maximumLineLength: Int = 64 * 1024, linesInFlight: Int = 1024) {
        self.host = host
        self.port = port
        self.allowRemote = allowRemote
        self.maximumLineLength = maximumLineLength
        self.linesInFlight = linesInFlight
    }

    /// Refuses a non-loopback host without `allowRemote`, and ports out of range.
    package func validate() throws(ServerError) {
        guard (0...65535).contains(port) else { throw .badPort(port) }
        if !allowRemote && !Self.isLoopback(host) { throw .remoteHostRefused(host) }
    }

    /// `localhost`, 127.0.0.0/8 and `::1` (also as `::ffff:127.x.x.x`).
    package static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        guard let address = try? SocketAddress(ipAddress: host, port: 0), let text = address.ipAddress else { return false }
        switch address.protocol {
        case .inet: return text.hasPrefix("127.")
        case .inet6: return text == "::1" || text.lowercased().hasPrefix("::ffff:127.")
        default: return false
        }
    }
}
