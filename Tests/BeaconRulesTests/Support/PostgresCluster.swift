import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for the tests: `initdb` in a temporary folder, `pg_ctl start` on a
/// free loopback port with its unix socket in that folder (fsync on, as in production), as the
/// `postgres` user (or `nobody`) when the tests run as root. One cluster serves a whole suite
/// (`.postgresCluster`) and is stopped when the suite ends, passed or failed
/// (`pg_ctl stop -m immediate`), so no postmaster outlives the tests; should the test process die
/// before that, its `OrphanGuard` stops the cluster a second later.
final class PostgresCluster: Sendable {
    let directory: String
    let port: Int
    let binaries: String
    /// The role the tests connect as (trust authentication on loopback).
    let user = "beacon"
    /// Runs the cluster's programs as this user (nil: as the tests' own user).
    let owner: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The current suite's cluster.
    @TaskLocal static var current: PostgresCluster?

    /// The cluster of the running test (fails the test when the suite has none).
    static func shared() throws -> PostgresCluster {
        try #require(current, "the suite needs the .postgresCluster trait")
    }

    /// Where the server's programs are: `pg_config --bindir`, else Debian's folder.
    static func findBinaries() -> String? {
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            .map { "/usr/lib/postgresql/\($0)/bin" } ?? []
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    static func start() throws -> PostgresCluster {
        guard let binaries = findBinaries() else {
            throw Failure(description: "no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)")
        }
        stopOrphans(binaries: binaries)
        let directory = "/tmp/beaconrules-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        chmod(directory, 0o777)
        let owner: String? = getuid() == 0 ? (getpwnam("postgres") != nil ? "postgres" : "nobody") : nil
        let cluster = PostgresCluster(directory: directory, port: try freePort(), binaries: binaries, owner: owner)
        OrphanGuard.guardDirectory(directory, stop: (owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [binaries + "/pg_ctl", "-D", cluster.data, "-m", "immediate", "-w", "stop"])
        try cluster.run("initdb", ["-D", cluster.data, "-U", cluster.user, "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"])
        try cluster.makeCertificates()
        try cluster.startServer()
        return cluster
    }

    /// Clusters of test processes that were killed before their suite ended (`/tmp/beaconrules-pg-PID-*`
    /// whose PID is gone): stopped and removed, so that no postmaster outlives a killed run for long.
    static func stopOrphans(binaries: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("beaconrules-pg-") {
            guard let pid = Int32(name.split(separator: "-")[2]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let owner: String? = getuid() == 0 ? (getpwnam("postgres") != nil ? "postgres" : "nobody") : nil
            let orphan = PostgresCluster(directory: "/tmp/" + name, port: 0, binaries: binaries, owner: owner)
            orphan.destroy()
        }
    }

    private init(directory: String, port: Int, binaries: String, owner: String?) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
        self.owner = owner
    }

    var data: String { directory + "/data" }

    /// `postgres://beacon@127.0.0.1:PORT/NAME`
    func url(_ database: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// A new empty database; its `--state` URL.
    func createDatabase(_ name: String) throws -> String {
        try psql("postgres", "CREATE DATABASE \(name)")
        return url(name)
    }

    /// Runs SQL with psql; its output, unaligned, tuples only.
    @discardableResult
    func psql(_ database: String, _ sql: String) throws -> String {
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
    }

    /// The transactions of `database` that were rolled back, as PostgreSQL counts them. A
    /// backend reports its counts when it ends, after its client has closed the connection: the
    /// count is read again until it moves or about ten seconds have passed (it stays 0 only when
    /// nothing was rolled back).
    func rolledBackTransactions(in database: String) async throws -> Int {
        var count = 0
        for _ in 0..<50 {
            count = Int(try psql("postgres", "SELECT xact_rollback FROM pg_stat_database WHERE datname = '\(database)'")
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if count > 0 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return count
    }

    func startServer() throws {
        try run("pg_ctl", [
            "-D", data, "-l", directory + "/server.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=50 -c shared_buffers=32MB -c ssl=on",
            "start",
        ])
    }

    /// Stops the server at once (`-m immediate`: no checkpoint; the next start recovers from the WAL).
    func stopServer() {
        _ = try? run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server and removes the folder.
    func destroy() {
        stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of the cluster's programs (as `owner` when set); its stdout, or an error with its
    /// stdout and stderr.
    ///
    /// Spawned and waited for by pid, not through `Process`: `pg_ctl start` leaves the postmaster
    /// running with the descriptors it inherited, and `Process` would wait for those to close.
    /// It runs in the cluster's folder, which `owner` may enter: the tests' own folder may not
    /// be readable to it (a clone in `mktemp -d`, mode 0700), and psql would say so in its output.
    /// Only stdout is returned: a warning on stderr never changes a query's result.
    @discardableResult
    func run(_ program: String, _ arguments: [String], in folder: String? = nil) throws -> String {
        let command = owner.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []
        let argv = command + ["/usr/bin/env", "-C", directory, (folder ?? binaries) + "/" + program] + arguments
        let output = directory + "/\(program)-\(UInt32.random(in: 0...UInt32.max)).out"
        let errors = output + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)\(said)")
        }
        return text
    }

    /// A loopback port free right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Gives a suite one private cluster, started before its first test and destroyed after its last.
struct PostgresClusterTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.destroy() }
        try await PostgresCluster.$current.withValue(cluster) { try await function() }
    }
}

extension Trait where Self == PostgresClusterTrait {
    static var postgresCluster: Self { PostgresClusterTrait() }
}
