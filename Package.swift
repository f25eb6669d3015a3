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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The rules engine: models, matching, localization, state as a protocol. No I/O, no C.
        .target(name: "BeaconRules", swiftSettings: strict),
        // Reads campaign and locale files from disk into the engine's types.
        .target(name: "CampaignFiles", dependencies: ["BeaconRules"], swiftSettings: strict),
        // Durable suppression state.
        .target(name: "BeaconRulesStore", dependencies: ["BeaconRules"], swiftSettings: strict),
        // The command line: a thin shell around the library.
        .executableTarget(
            name: "beaconrules",
            dependencies: [
                "BeaconRules", "CampaignFiles", "BeaconRulesStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BeaconRulesTests",
            dependencies: ["BeaconRules", "CampaignFiles", "BeaconRulesStore", "beaconrules"],
            swiftSettings: strict
        ),
    ]
)
