import Foundation
import Testing

/// `--state postgres://...?sslmode=...` against the suite's cluster, which has TLS on with a
/// certificate of a private authority (`PostgresCluster+TLS`).
extension ServePostgresTests {
    @Test func serveConnectsOverTLSAndVerifyFullChecksTheCertificateAndTheHostName() async throws {
        let cluster = try PostgresCluster.shared()
        _ = try cluster.createDatabase("tls")
        let byName = "postgres://\(cluster.user)@localhost:\(cluster.port)/tls"
        let byAddress = "postgres://\(cluster.user)@127.0.0.1:\(cluster.port)/tls"
        let line = try #require(MuseumTrace.devices(1, events: 1, prefix: "tls").first?.first)
        let verified = byName + "?sslmode=verify-full&sslrootcert=\(cluster.authority)"

        for url in [byAddress + "?sslmode=require", verified] {
            let server = try await ServerProcess.start(["--state", url])
            let replies = try await LineClient.exchange(port: server.port, lines: [line])
            // The instance's connection is encrypted.
            let encrypted = try cluster.psql("tls", "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE s.ssl AND a.datname = 'tls' AND a.pid <> pg_backend_pid()")
            await server.stop()
            #expect(replies.first?.hasPrefix(#"{"ok":true"#) == true, "\(url): \(replies)")
            #expect(encrypted != "0\n", "\(url)")
        }

        // `state migrate` connects and exits either way (a `serve` that connects would run on).
        let otherAuthority = try CommandRunner.run(["state", "migrate", "--state", byName + "?sslmode=verify-full&sslrootcert=\(cluster.otherAuthority)"])
        #expect(otherAuthority.status == 2)
        #expect(otherAuthority.stderr.contains("cannot connect"), "\(otherAuthority.stderr)")
        #expect(otherAuthority.stderr.contains("the server's certificate is not signed by an authority in the sslrootcert file \(cluster.otherAuthority)"), "\(otherAuthority.stderr)")

        let address = try CommandRunner.run(["state", "migrate", "--state", byAddress + "?sslmode=verify-full&sslrootcert=\(cluster.authority)"])
        #expect(address.status == 2)
        #expect(address.stderr.contains("127.0.0.1 is an address: give the host by the name its certificate carries"), "\(address.stderr)")

        // The server's certificate for another host name: verify-full to localhost is refused.
        try cluster.serverCertificate(for: "db.beaconrules.invalid")
        try cluster.reloadConfiguration()
        defer {
            try? cluster.serverCertificate(for: "localhost")
            try? cluster.reloadConfiguration()
        }
        var wrongHost = try CommandRunner.run(["state", "migrate", "--state", verified])
        // The reload is asynchronous: until the server has read the new files, it still shows the old.
        for _ in 0..<50 where wrongHost.status != 2 {
            try await Task.sleep(for: .milliseconds(100))
            wrongHost = try CommandRunner.run(["state", "migrate", "--state", verified])
        }
        #expect(wrongHost.status == 2)
        #expect(wrongHost.stderr.contains("the server's certificate is not one for host localhost (sslmode=verify-full checks the name)"), "\(wrongHost.stderr)")
    }
}
