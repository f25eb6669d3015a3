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
        .executable(name: "beaconrules", targets: ["beaconrules"]),
        .executable(name: "beaconrules-bench", targets: ["beaconrules-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The rules engine: models, matching, localization, state as a protocol. No I/O, no C.
        // Cross-module optimization lets the CLI and server specialize the generic engine for their
        // store: unspecialized, a third of replay's time went to generic metadata and value witnesses.
        .target(
            name: "BeaconRules",
            swiftSettings: strict + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
        ),
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
        // Durable suppression state.
        .target(name: "BeaconRulesStore", dependencies: ["BeaconRules"], swiftSettings: strict),
        // The command line: a thin shell around the library.
        .executableTarget(
            name: "beaconrules",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BeaconRulesStore", "BeaconRulesXML", "CampaignLint",
                "BeaconRulesTimeline", "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
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
        .testTarget(
            name: "BeaconRulesTests",
            dependencies: ["BeaconRules", "CampaignFiles", "BeaconRulesStore", "BeaconRulesXML", "CampaignLint", "BenchmarkWorkload", "BeaconRulesTimeline", "beaconrules", "beaconrules-bench"],
            swiftSettings: strict
        ),
    ]
)
