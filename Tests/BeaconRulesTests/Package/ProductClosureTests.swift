import Testing

/// Pay for what you use (ARCHITECTURE.md): a backend that embeds `RulesService` with its state in
/// memory or SQLite compiles no database driver, no TLS, no crypto and no HTTP server. PostgreSQL
/// comes with the `BeaconRulesPostgres` product, Hummingbird only with the command line.
@Suite("Package.swift: each product compiles only what it uses", .serialized)
struct ProductClosureTests {
    /// Modules of the packages no embedder of the service may have to compile.
    static let heavyPackages: Set<String> = ["postgres-nio", "swift-nio-ssl", "swift-crypto", "hummingbird"]
    /// The modules of those packages that a product would import from them, by name.
    static let heavyModules: Set<String> = ["PostgresNIO", "NIOSSL", "Crypto", "Hummingbird"]

    /// One reading of the manifests for the whole suite (each one is compiled to be read).
    static let closure = ModuleClosure()

    @Test func theServiceProductCompilesNoPostgresNIONIOSSLCryptoOrHummingbird() throws {
        let modules = try Self.closure.modules(ofProduct: "BeaconRulesService")
        let heavy = modules.filter { Self.heavyPackages.contains($0.package) || Self.heavyModules.contains($0.name) }
        #expect(heavy.isEmpty, "BeaconRulesService compiles \(heavy.map(\.description).sorted())")
        // What it does compile: the engine, the SQLite store and the service itself.
        #expect(modules.contains(.init(package: ModuleClosure.root, name: "BeaconRulesStore")))
    }

    /// `swift build --product BeaconRulesService` builds the service alone only for a product of
    /// an explicit type: for an automatic one SwiftPM builds every target of the package instead.
    @Test func theServiceProductCanBeBuiltAloneByName() throws {
        let products = try #require(try ManifestTests.dumpPackage()["products"] as? [[String: Any]])
        let service = try #require(products.first { $0["name"] as? String == "BeaconRulesService" })
        let library = try #require((service["type"] as? [String: Any])?["library"] as? [String])
        #expect(library == ["static"])
    }

    /// The walk sees what the rule forbids: PostgreSQL's product reaches the driver, its TLS and
    /// swift-crypto (through PostgresNIO's own manifest).
    @Test func thePostgresProductCompilesPostgresNIONIOSSLAndCrypto() throws {
        let names = Set(try Self.closure.modules(ofProduct: "BeaconRulesPostgres").map(\.name))
        #expect(names.isSuperset(of: ["PostgresNIO", "NIOSSL", "Crypto", "BeaconRulesService"]))
        #expect(!names.contains("Hummingbird"))
    }
}
