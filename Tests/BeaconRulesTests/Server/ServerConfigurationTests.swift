import BeaconRulesServer
import Testing

@Suite("ServerConfiguration")
struct ServerConfigurationTests {
    @Test(arguments: ["127.0.0.1", "127.3.2.1", "::1", "localhost", "LocalHost", "::ffff:127.0.0.1"])
    func loopbackHostsAreAllowed(_ host: String) throws {
        try ServerConfiguration(host: host).validate()
    }

    @Test(arguments: ["0.0.0.0", "::", "10.0.0.1", "192.168.1.20", "example.com", ""])
    func otherHostsNeedAllowRemote(_ host: String) throws {
        #expect(throws: ServerError.self) { try ServerConfiguration(host: host).validate() }
        try ServerConfiguration(host: host, allowRemote: true).validate()
    }

    @Test func aPortOutOfRangeIsRefused() {
        #expect(throws: ServerError.self) { try ServerConfiguration(port: 70000).validate() }
    }
}
