public import BeaconRulesStore
import Foundation

/// Where a PostgreSQL state lives: `postgres://USER@HOST:PORT/DB?sslmode=MODE`, as `--state`
/// takes it. The password never comes in the URL (it would show in `ps` and shell history): it is
/// read from a file (`--state-password-file`) or from `PGPASSWORD`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (loopback, or a network the operator trusts).
        case disable
        /// TLS, without checking the server's certificate (libpq's `require`).
        case require
        /// TLS, the certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    public var tls: TLSMode
    public var password: String?

    public init(user: String, host: String, port: Int = 5432, database: String, tls: TLSMode = .disable, password: String? = nil) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.tls = tls
        self.password = password
    }

    /// Whether `--state` names a PostgreSQL database rather than an SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `postgres://USER@HOST[:PORT]/DB[?sslmode=disable|require|verify-full]`.
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
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else {
                throw fail("unknown parameter \(item.name); the URL takes sslmode only")
            }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw fail("sslmode \(item.value ?? ""): expected one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = mode
        }
        self.init(user: user, host: host, port: components.port ?? 5432, database: database, tls: tls)
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
    }

    /// `text` with anything between `://` and `@` cut to the user name.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex) else { return text }
        let credentials = text[scheme.upperBound..<at.lowerBound]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + String(text[at.lowerBound...])
    }
}
