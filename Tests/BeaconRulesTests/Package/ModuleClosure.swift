import Foundation
import Testing

/// The modules a product of this package compiles: its targets, and every target they depend on,
/// in this package and, through the products they name, in the packages checked out under
/// `.build/checkouts`, each read from its manifest (`swift package dump-package`, which resolves
/// nothing). A dependency under a condition (a platform, a trait) counts as taken, so the closure
/// holds at least what any build of the product compiles.
final class ModuleClosure: @unchecked Sendable {
    /// One module: the package that declares it (its identity, `beaconrules` for this one) and its name.
    struct Module: Hashable, CustomStringConvertible {
        var package: String
        var name: String
        var description: String { "\(package)/\(name)" }
    }

    private let checkouts: String
    /// Manifests read so far, by package identity (reading one compiles it: seconds each).
    private var manifests: [String: [String: Any]] = [:]
    private let lock = NSLock()

    init(checkouts: String = Paths.repo(".build/checkouts")) {
        self.checkouts = checkouts
    }

    /// Every module that building `product` of this package compiles.
    func modules(ofProduct product: String) throws -> Set<Module> {
        try lock.withLock {
            let manifest = try self.manifest(of: Self.root)
            let products = try #require(manifest["products"] as? [[String: Any]])
            let found = try #require(products.first { $0["name"] as? String == product }, "no product \(product) in Package.swift")
            let targets = try #require(found["targets"] as? [String])
            var seen: Set<Module> = []
            for target in targets { try walk(Module(package: Self.root, name: target), into: &seen) }
            return seen
        }
    }

    /// This package's own identity in the closure.
    static let root = "beaconrules"

    private func walk(_ module: Module, into seen: inout Set<Module>) throws {
        guard seen.insert(module).inserted else { return }
        let manifest = try self.manifest(of: module.package)
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let target = try #require(targets.first { $0["name"] as? String == module.name }, "no target \(module) in its manifest")
        for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
            if let named = dependency["target"] as? [Any], let name = named.first as? String {
                try walk(Module(package: module.package, name: name), into: &seen)
            } else if let named = dependency["product"] as? [Any], let name = named.first as? String {
                let package = (named.count > 1 ? named[1] as? String : nil) ?? name
                try walkProduct(name, of: package.lowercased(), into: &seen)
            } else if let named = dependency["byName"] as? [Any], let name = named.first as? String {
                // A target of the same package if there is one, else a product of a dependency.
                if targets.contains(where: { $0["name"] as? String == name }) {
                    try walk(Module(package: module.package, name: name), into: &seen)
                } else {
                    let owner = try dependencies(of: manifest).first { try self.products(of: $0).contains(name) }
                    try walkProduct(name, of: try #require(owner, "\(module) names \(name), which no dependency offers"), into: &seen)
                }
            }
        }
    }

    private func walkProduct(_ product: String, of package: String, into seen: inout Set<Module>) throws {
        let manifest = try self.manifest(of: package)
        let products = try #require(manifest["products"] as? [[String: Any]])
        let found = try #require(products.first { $0["name"] as? String == product }, "no product \(product) in \(package)")
        for target in found["targets"] as? [String] ?? [] {
            try walk(Module(package: package, name: target), into: &seen)
        }
    }

    private func products(of package: String) throws -> [String] {
        let products = try manifest(of: package)["products"] as? [[String: Any]] ?? []
        return products.compactMap { $0["name"] as? String }
    }

    /// The identities of the packages a manifest depends on.
    private func dependencies(of manifest: [String: Any]) -> [String] {
        (manifest["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
            let kind = dependency.values.first as? [[String: Any]]
            return (kind?.first?["identity"] as? String)?.lowercased()
        }
    }

    private func manifest(of package: String) throws -> [String: Any] {
        if let known = manifests[package] { return known }
        let folder = package == Self.root ? Paths.root.path : checkouts + "/" + package
        try #require(
            FileManager.default.fileExists(atPath: folder + "/Package.swift"),
            "no checkout of \(package) at \(folder): build the package first (swift build)")
        let read = try Self.dumpPackage(in: folder)
        manifests[package] = read
        return read
    }

    /// `swift package dump-package` in `folder`, with a scratch path of its own (under
    /// `swift test`, `.build` is locked by the test command itself, and a checkout is no place to
    /// write).
    static func dumpPackage(in folder: String) throws -> [String: Any] {
        let scratch = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--disable-sandbox", "--scratch-path", scratch, "dump-package"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed in \(folder)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
