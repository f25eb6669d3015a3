public import BeaconRules
import Foundation

/// Campaigns read from files and folders, with every diagnostic found on the way.
public struct CampaignCatalog: Sendable {
    public var campaigns: [Campaign] = []
    public var diagnostics: [Diagnostic] = []
    /// The campaign files read, in load order.
    public var files: [String] = []

    public init() {}

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
}

/// Turns one campaign file's bytes into campaigns (JSON here; other formats plug in by extension).
public typealias CampaignFormatReader = @Sendable (_ path: String, _ bytes: [UInt8]) -> (campaigns: [Campaign], diagnostics: [Diagnostic])

/// Reads `--campaigns` paths: files, or folders read recursively in file-name order.
public struct CampaignFileReader: Sendable {
    /// Readers by lower-cased file extension; `json` is built in.
    public var formats: [String: CampaignFormatReader]

    public init(extraFormats: [String: CampaignFormatReader] = [:]) {
        formats = ["json": CampaignFileReader.readJSON]
        for (ext, reader) in extraFormats { formats[ext.lowercased()] = reader }
    }

    /// Loads every path in order. Never throws: problems are diagnostics.
    public func load(paths: [String]) -> CampaignCatalog {
        var catalog = CampaignCatalog()
        for path in paths {
            switch FileTree.kind(of: path) {
            case .missing:
                catalog.diagnostics.append(Diagnostic(.error, SourceLocation(file: path, line: 0), "no such file or folder"))
            case .file:
                // A file named explicitly is read even with an unknown extension, as JSON.
                read(path, format: formats[FileTree.fileExtension(path)] ?? CampaignFileReader.readJSON, into: &catalog)
            case .directory:
                let files = FileTree.files(under: path).filter { formats[FileTree.fileExtension($0)] != nil }
                for file in files { read(file, format: formats[FileTree.fileExtension(file)]!, into: &catalog) }
            }
        }
        return catalog
    }

    func read(_ path: String, format: CampaignFormatReader, into catalog: inout CampaignCatalog) {
        guard let data = FileManager.default.contents(atPath: path) else {
            catalog.diagnostics.append(Diagnostic(.error, SourceLocation(file: path, line: 0), "cannot read the file"))
            return
        }
        let (campaigns, diagnostics) = format(path, [UInt8](data))
        catalog.files.append(path)
        catalog.campaigns += campaigns
        catalog.diagnostics += diagnostics
    }

    /// The Sensorberg JSON format in any of its three shapes.
    @Sendable public static func readJSON(path: String, bytes: [UInt8]) -> (campaigns: [Campaign], diagnostics: [Diagnostic]) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return ([], [Diagnostic(.error, SourceLocation(file: path, line: error.line, column: error.column), "not valid JSON: \(error.message)")])
        }
        var decoder = CampaignDecoder(file: path)
        let campaigns = decoder.decode(document: document)
        return (campaigns, decoder.diagnostics)
    }
}
