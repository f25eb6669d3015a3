import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The cluster's TLS: a private certificate authority in the cluster's folder (`tls/ca.crt`, what
/// `sslrootcert` names) and a server certificate it signed, made by `openssl` as the cluster's
/// owner (PostgreSQL reads its key only when its owner alone may).
extension PostgresCluster {
    var tlsFolder: String { directory + "/tls" }
    /// The authority that signed the server's certificate.
    var authority: String { tlsFolder + "/ca.crt" }
    /// An authority that signed nothing of this cluster's.
    var otherAuthority: String { tlsFolder + "/other-ca.crt" }

    /// Both authorities, and a server certificate for `localhost`.
    func makeCertificates() throws {
        try FileManager.default.createDirectory(atPath: tlsFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        chmod(tlsFolder, 0o777)
        for name in ["ca", "other-ca"] {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-keyout", "\(tlsFolder)/\(name).key", "-out", "\(tlsFolder)/\(name).crt", "-days", "2", "-subj", "/CN=beaconrules test \(name)"])
        }
        try serverCertificate(for: "localhost")
    }

    /// A server certificate for `host`, signed by `authority`, in place of the server's (a
    /// running server takes it on `reloadConfiguration()`).
    func serverCertificate(for host: String) throws {
        try "subjectAltName=DNS:\(host)\n".write(toFile: tlsFolder + "/san.cnf", atomically: true, encoding: .utf8)
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", data + "/server.key", "-out", tlsFolder + "/server.csr", "-subj", "/CN=\(host)"])
        try openssl(["x509", "-req", "-in", tlsFolder + "/server.csr", "-CA", authority, "-CAkey", tlsFolder + "/ca.key",
                     "-CAcreateserial", "-out", data + "/server.crt", "-days", "2", "-extfile", tlsFolder + "/san.cnf"])
        try run("chmod", ["0600", data + "/server.key"], in: "/bin")
    }

    /// `pg_ctl reload`: the server reads its configuration and certificate files again.
    func reloadConfiguration() throws {
        try run("pg_ctl", ["-D", data, "reload"])
    }

    private func openssl(_ arguments: [String]) throws {
        try run("openssl", arguments, in: "/usr/bin")
    }
}
