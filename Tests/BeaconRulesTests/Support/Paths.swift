import Foundation

/// Where the package, its fixtures (the Sensorberg corpus and the recorded scans among them) and the built binary are.
enum Paths {
    /// The package root, found from this file's location.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    static func repo(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static var fixtures: String { repo("Tests/Fixtures") }
    static func fixture(_ name: String) -> String { fixtures + "/" + name }

    /// The Sensorberg SDKs' and resolver's layouts (`Tests/Fixtures/sensorberg`, MIT, sources in its README).
    static var sensorberg: String { fixture("sensorberg") }
    /// A recorded iBeacon scan of `Tests/Fixtures/starksm64` (Apache 2.0, sources in its README), by name.
    static func recordedScan(_ name: String) -> String { fixture("starksm64/" + name + ".json.gz") }
    static var campaigns: String { repo("Campaigns") }
    static var locales: String { repo("Locales") }

    /// The `beaconrules` binary built next to the test bundle.
    static var binary: String { executable("beaconrules") }

    /// An executable of the package built next to the test bundle.
    static func executable(_ name: String) -> String {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent(name).path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path,
            root.appendingPathComponent(".build/debug/" + name).path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }

    static func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// A fresh temporary folder for one test.
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "beaconrules-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
