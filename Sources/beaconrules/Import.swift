import ArgumentParser
import BeaconRules
import BeaconRulesReplay
import CampaignFiles
import Foundation

/// `beaconrules import`: XML exports and Sensorberg layouts in, campaign JSON layouts out.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert XML campaign exports (and Sensorberg layouts) into campaign JSON files.",
        discussion: """
            Each input file becomes DIR/<name>.json, a Sensorberg layout that loads with --campaigns and \
            gives the same records as the input. A folder argument converts every .xml and .json file \
            under it, keeping the folder structure. Nothing is written unless every input loads. \
            Exit status: 0 written; 2 bad usage or an input that does not load (every error on stderr \
            with file, line and column).
            """
    )

    @Argument(help: ArgumentHelp("XML exports or Sensorberg JSON layouts (files or folders).", valueName: "file"))
    var inputs: [String]

    @Option(name: .customLong("out"), help: ArgumentHelp("The folder to write the campaign JSON files into (created if missing).", valueName: "dir"))
    var outputDirectory: String

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one XML export or JSON layout to import") }
    }

    /// One input file and where its JSON goes.
    struct Conversion {
        var input: String
        var output: String
        var campaigns: [Campaign]
        var accountProximityUUIDs: JSONValue?
    }

    func run() throws {
        let reader = CampaignFileReader(extraFormats: CampaignFormats.extra)
        var conversions: [Conversion] = []
        var failed = false
        for (input, relative) in try files() {
            let catalog = reader.load(paths: [input])
            for diagnostic in catalog.diagnostics { StandardError.write("beaconrules: \(diagnostic)\n") }
            if !catalog.errors.isEmpty { failed = true; continue }
            let output = outputDirectory + "/" + (relative.hasSuffix(".json") || relative.hasSuffix(".xml") ? String(relative[..<relative.lastIndex(of: ".")!]) : relative) + ".json"
            conversions.append(Conversion(input: input, output: output, campaigns: catalog.campaigns, accountProximityUUIDs: accountUUIDs(of: input)))
        }
        if failed { throw ExitCode(2) }
        try checkOutputs(conversions)
        for conversion in conversions {
            let layout = CampaignLayoutFile.layout(for: conversion.campaigns, accountProximityUUIDs: conversion.accountProximityUUIDs)
            let url = URL(fileURLWithPath: conversion.output)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(CampaignLayoutFile.text(layout).utf8).write(to: url, options: .atomic)
            } catch {
                StandardError.write("beaconrules: \(conversion.output): cannot write: \(error.localizedDescription)\n")
                throw ExitCode(2)
            }
            print("\(conversion.input) -> \(conversion.output) (\(conversion.campaigns.count) campaign\(conversion.campaigns.count == 1 ? "" : "s"))")
        }
    }

    /// Every input file with the path its output takes under `--out`.
    func files() throws -> [(path: String, relative: String)] {
        var result: [(String, String)] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                StandardError.write("beaconrules: \(input): no such file or folder\n")
                throw ExitCode(2)
            }
            let name = (input as NSString).lastPathComponent
            guard isDirectory.boolValue else { result.append((input, name)); continue }
            let base = input.hasSuffix("/") ? input : input + "/"
            let found = (FileManager.default.subpaths(atPath: input) ?? [])
                .filter { ["xml", "json"].contains(($0 as NSString).pathExtension.lowercased()) && !$0.split(separator: "/").contains { $0.hasPrefix(".") } }
                .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for relative in found { result.append((base + relative, relative)) }
        }
        return result
    }

    /// Refuses two inputs writing one file, and an output that would overwrite an input.
    func checkOutputs(_ conversions: [Conversion]) throws {
        let inputs = Set(conversions.map { URL(fileURLWithPath: $0.input).standardizedFileURL.path })
        var claimed: [String: String] = [:]
        for conversion in conversions {
            let output = URL(fileURLWithPath: conversion.output).standardizedFileURL.path
            if let other = claimed[output] {
                StandardError.write("beaconrules: \(conversion.input) and \(other) would both be written to \(conversion.output); import them into different folders or rename one\n")
                throw ExitCode(2)
            }
            if inputs.contains(output) {
                StandardError.write("beaconrules: \(conversion.output) would overwrite the input \(conversion.input); choose another --out folder\n")
                throw ExitCode(2)
            }
            claimed[output] = conversion.input
        }
    }

    /// A JSON layout's own `accountProximityUUIDs`, kept as they were.
    func accountUUIDs(of path: String) -> JSONValue? {
        guard (path as NSString).pathExtension.lowercased() == "json",
              let data = FileManager.default.contents(atPath: path),
              let document = try? JSONParser.parse([UInt8](data)) else { return nil }
        return document["accountProximityUUIDs"]
    }
}
