#if canImport(Glibc)
import Glibc
#endif

/// Where `serve` listens, and the limits it keeps per connection.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; the bound one is reported through `onListening`.
    public var port: Int
    /// Needed to listen on anything but loopback.
    public var allowRemote: Bool
    /// The longest request line, in bytes (SPEC: 64 KiB).
    public var maximumLineLength: Int
    /// Lines of one connection read but not yet answered. A client that does not read its replies
    /// stops being read once this many are waiting, so it costs bounded memory.
    public var linesInFlight: Int

    public init(host: String = "127.0.0.1", port: Int = 7700, allowRemote: Bool = false,
                maximumLineLength: Int = 64 * 1024, linesInFlight: Int = 1024) {
        self.host = host
        self.port = port
        self.allowRemote = allowRemote
        self.maximumLineLength = maximumLineLength
        self.linesInFlight = linesInFlight
    }

    /// Refuses a non-loopback host without `allowRemote`, and ports out of range.
    public func validate() throws(ServerError) {
        guard (0...65535).contains(port) else { throw .badPort(port) }
        if !allowRemote && !Self.isLoopback(host) { throw .remoteHostRefused(host) }
    }

    /// `localhost`, 127.0.0.0/8 and `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}
