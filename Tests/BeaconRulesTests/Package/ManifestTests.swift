import Foundation
import Testing

/// A backend pins this package by version (`.package(url:from:)`): SwiftPM refuses that for a
/// package whose products' targets carry unsafe flags, so no target may, as a dependency sees the
/// manifest. The engine's hot path is fast without `-cross-module-optimization` (`@inlinable` and
/// `@_specialize`, docs/performance-history.md), so the manifest asks for no unsafe flag at all,
/// under any environment.
@Suite("Package.swift: a dependency a backend can pin by version")
struct ManifestTests {
    @Test func noTargetCarriesUnsafeFlags() throws {
        let manifest = try Self.dumpPackage()
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        #expect(targets.count > 10)
        for target in targets {
            let settings = target["settings"] as? [[String: Any]] ?? []
            let unsafe = settings.filter { setting in
                (setting["kind"] as? [String: Any])?["unsafeFlags"] != nil
            }
            #expect(unsafe.isEmpty, "target \(target["name"] ?? "?") carries unsafe flags: \(unsafe)")
        }
    }

    /// Not even behind an environment variable: the manifest's text never names an unsafe flag.
    @Test func manifestNamesNoUnsafeFlags() throws {
        let text = try String(contentsOfFile: Paths.repo("Package.swift"), encoding: .utf8)
        #expect(!text.contains("unsafeFlags"))
        #expect(!text.contains("Context.environment"))
    }

    /// `swift package dump-package`: the manifest as SwiftPM reads it, in JSON.
    static func dumpPackage() throws -> [String: Any] {
        try ModuleClosure.dumpPackage(in: Paths.root.path)
    }
}
