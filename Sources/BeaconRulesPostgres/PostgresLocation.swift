public import BeaconRulesStore
import Foundation

/// Where a PostgreSQL state lives: `postgres://USER@HOST:PORT/DB?sslmode=MODE`, as `--state`
/// takes it. The password never comes in the URL (it would show in `ps` and shell history): it is
/// read from a file (`--state-password-file`) or from `PGPASSWORD`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// Whether and how the connection uses TLS: the URL's `sslmode`, as libpq names the modes.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (loopback, or a network the operator trusts).
        case disable
        /// TLS, without checking the server's certificate (libpq's `require`).
        case require
        /// TLS, the certificate checked against the system's roots (or `sslrootcert`) and the
        /// host name.
        case verifyFull = "verify-full"
    }

    /// The role to connect as (the URL's user).
    public var user: String
    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 unless the URL says otherwise).
    public var port: Int
    /// The database (the URL's path).
    public var database: String
    /// The URL's `sslmode`.
    public var tls: TLSMode
    /// A PEM file of the certificate authorities that `verify-full` trusts instead of the
    /// system's (`sslrootcert`, as libpq names it): a private CA's.
    public var rootCertificates: String?
    /// The password, never from the URL: `readPassword(file:environment:)` reads it.
    public var password: String?

    /// A location of each part, as the URL would give it.
    public init(user: String, host: String, port: Int = 5432, database: String, tls: TLSMode = .disable, rootCertificates: String? = nil, password: String? = nil) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.tls = tls
        self.rootCertificates = rootCertificates
        self.password = password
    }

    /// Whether `--state` names a PostgreSQL database rather than an SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `postgres://USER@HOST[:PORT]/DB[?sslmode=disable|require|verify-full[&sslrootcert=FILE]]`.
    /// A password in the URL is refused.
    public init(url text: String) throws(StoreError) {
        func fail(_ message: String) -> StoreError {
            StoreError(path: Self.redacted(text), message: message)
        }
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw fail("not a PostgreSQL URL; expected postgres://USER@HOST:PORT/DB")
        }
        if components.password != nil {
            throw fail("a password in the URL is refused (it would show in the process list); give it in PGPASSWORD or --state-password-file")
        }
        guard let user = components.user, !user.isEmpty else {
            throw fail("no user; expected postgres://USER@HOST:PORT/DB")
        }
        guard let host = components.host, !host.isEmpty else {
            throw fail("no host; expected postgres://USER@HOST:PORT/DB")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw fail("no database name; expected postgres://USER@HOST:PORT/DB")
        }
        var tls = TLSMode.disable
        var roots: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw fail("sslmode \(item.value ?? ""): expected one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            case "sslrootcert":
                guard let file = item.value, !file.isEmpty else { throw fail("sslrootcert without a file; expected sslrootcert=/path/to/ca.pem") }
                roots = file
            default:
                throw fail("unknown parameter \(item.name); the URL takes sslmode and sslrootcert")
            }
        }
        if roots != nil && tls != .verifyFull {
            throw fail("sslrootcert is for sslmode=verify-full (require checks no certificate)")
        }
        // NIOSSL checks a host name only, never an address: verify-full to an address would
        // check the certificate's chain and not whose it is.
        if tls == .verifyFull && Self.isAddress(host) {
            throw fail("sslmode=verify-full checks the certificate against the host's name, and \(host) is an address: give the host by the name its certificate carries")
        }
        self.init(user: user, host: host, port: components.port ?? 5432, database: database, tls: tls, rootCertificates: roots)
    }

    /// An IPv4 or IPv6 address rather than a name.
    static func isAddress(_ host: String) -> Bool {
        if host.contains(":") || host.hasPrefix("[") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The password from `file` (its first line) when given, else from `PGPASSWORD`, else none.
    public mutating func readPassword(file: String?, environment: [String: String]? = nil) throws(StoreError) {
        if let file {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw StoreError(path: file, message: "cannot read the password file")
            }
            password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        } else {
            password = (environment ?? ProcessInfo.processInfo.environment)["PGPASSWORD"]
        }
    }

    /// The URL without a password, as logs and errors show it.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (tls == .disable ? "" : "?sslmode=\(tls.rawValue)")
            + (rootCertificates.map { "&sslrootcert=\($0)" } ?? "")
    }

    /// `text` with anything between `://` and `@` cut to the user name.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex) else { return text }
        let credentials = text[scheme.upperBound..<at.lowerBound]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + String(text[at.lowerBound...])
    }
}
