// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BeaconRules",
    products: [
        .library(name: "BeaconRules", targets: ["BeaconRules"]),
        // Static, not automatic: SwiftPM builds a root package's automatic library product only
        // with everything else (`swift build --product` refuses it), so this is what lets
        // `swift build -c release --product BeaconRulesService` build the service alone. To a
        // package that depends on it, static and automatic link the same way.
        .library(name: "BeaconRulesService", type: .static, targets: ["BeaconRulesService"]),
        // PostgreSQL state for `RulesService` (`StateStorage.postgres`): a product of its own, so
        // that an embedder keeping state in memory or SQLite compiles no PostgresNIO, NIOSSL or
        // swift-crypto (ARCHITECTURE.md, "Pay for what you use").
        .library(name: "BeaconRulesPostgres", targets: ["BeaconRulesPostgres"]),
        .executable(name: "beaconrules", targets: ["beaconrules"]),
        .executable(name: "beaconrules-bench", targets: ["beaconrules-bench"]),
        .executable(name: "beaconrules-load", targets: ["beaconrules-load"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // The rules engine: models, matching, localization, state as a protocol. No I/O, no C.
        .target(name: "BeaconRules", swiftSettings: strict),
        // Reads campaign and locale files from disk into the engine's types.
        .target(name: "CampaignFiles", dependencies: ["BeaconRules"], swiftSettings: strict),
        // libxml2, as the system has it. Only BeaconRulesXML imports it.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // The XML export form of campaigns (SPEC section 6), read safely with libxml2.
        .target(name: "BeaconRulesXML", dependencies: ["BeaconRules", "CLibXML2"], swiftSettings: strict),
        // Checks on campaigns and locales beyond what loading needs (`beaconrules lint`). No I/O.
        .target(name: "CampaignLint", dependencies: ["BeaconRules"], swiftSettings: strict),
        // zlib, as the system has it: reads gzip-compressed recorded scans. Only `beaconrules` imports it.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The `timeline` picture (SVG) of presence and notifications. No I/O.
        .target(name: "BeaconRulesTimeline", dependencies: ["BeaconRules"], swiftSettings: strict),
        // The system SQLite (libsqlite3-dev): a module map and a shim, imported by BeaconRulesStore only.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Durable state in SQLite: suppression, once-only, and the log of answered events.
        .target(name: "BeaconRulesStore", dependencies: ["BeaconRules", "CSQLite"], swiftSettings: strict),
        // Durable state in PostgreSQL, shared by many `serve` instances: the same contract as the
        // SQLite store, one transaction per batch with a lock per device (docs/serve.md, "Scaling out").
        // Above the server and the service, never below them: it adds its store to both
        // (`StateLog`, `StateStorage.postgres`), so neither compiles PostgresNIO.
        .target(
            name: "BeaconRulesPostgres",
            dependencies: [
                "BeaconRules", "BeaconRulesStore", "BeaconRulesServer", "BeaconRulesService",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `beaconrules serve`: the SwiftNIO line service around the engine and the store.
        .target(
            name: "BeaconRulesServer",
            dependencies: [
                "BeaconRules", "BeaconRulesStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // BeaconRules for a backend: one actor around the line pipeline, campaigns from files or
        // memory, state in memory or in the same SQLite file as `serve`, a lifecycle `Service`.
        // No PostgresNIO, NIOSSL, swift-crypto or Hummingbird in its closure (ProductClosureTests).
        .target(
            name: "BeaconRulesService",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BeaconRulesXML", "BeaconRulesStore", "BeaconRulesServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // `beaconrules http`: the HTTP front on `RulesService`, a Hummingbird 2 application.
        .target(
            name: "BeaconRulesHTTP",
            dependencies: [
                "BeaconRulesService", "BeaconRulesServer", "CampaignFiles",
                // The console (`--console`, `beaconrules console`): lint, timelines.
                "BeaconRules", "CampaignLint", "BeaconRulesTimeline",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // `replay`: its input (line reader, recorded scans) and output (record and error writers),
        // the one-engine driver (in memory or on a state file; a database through a protocol) and `replay --jobs N`: the
        // events shared out by device over N engines, the records written in input order.
        .target(name: "BeaconRulesReplay", dependencies: ["BeaconRules", "BeaconRulesStore", "CZlib"], swiftSettings: strict),
        // The command line: options, loading and exit codes around the library targets.
        .executableTarget(
            name: "beaconrules",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BeaconRulesStore", "BeaconRulesXML", "CampaignLint", "BeaconRulesServer",
                "BeaconRulesTimeline", "BeaconRulesPostgres", "CZlib", "BeaconRulesService", "BeaconRulesHTTP", "BeaconRulesReplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The README's ten lines: the museum trace through `RulesService` with SQLite state, through
        // public imports only (a test runs it and compares with the golden records).
        .executableTarget(
            name: "museum-embedding",
            dependencies: ["BeaconRulesService"],
            path: "Examples/MuseumEmbedding",
            swiftSettings: strict
        ),
        // The seeded benchmark workload, shared by the benchmark and the tests.
        .target(name: "BenchmarkWorkload", dependencies: ["BeaconRules"], swiftSettings: strict),
        // Measures replay against `wc -l`, campaign loading and state size (run by hand, release build).
        .executableTarget(
            name: "beaconrules-bench",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BenchmarkWorkload",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // A load client for `serve`: throughput with pipelining, latency at a fixed rate.
        .executableTarget(
            name: "beaconrules-load",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/BeaconRulesLoad",
            swiftSettings: strict
        ),
        .testTarget(
            name: "BeaconRulesTests",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BeaconRulesStore", "BeaconRulesXML", "CampaignLint", "BenchmarkWorkload", "BeaconRulesTimeline", "BeaconRulesPostgres",
                "BeaconRulesServer", "BeaconRulesService", "BeaconRulesHTTP", "beaconrules", "beaconrules-bench", "beaconrules-load", "museum-embedding", "BeaconRulesReplay",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
    ]
)
