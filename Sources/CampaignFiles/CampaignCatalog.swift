package import BeaconRules
import Foundation

/// Campaigns read from files and folders, with every diagnostic found on the way.
package struct CampaignCatalog: Sendable {
    package var campaigns: [Campaign] = []
    package var diagnostics: [Diagnostic] = []
    /// The campaign files read, in load order.
    package var files: [String] = []

    package init() {}

    package var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    package var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
}

/// Turns one campaign file's bytes into campaigns (JSON here; other formats plug in by extension).
package typealias CampaignFormatReader = @Sendable (_ path: String, _ bytes: [UInt8]) -> (campaigns: [Campaign], diagnostics: [Diagnostic])

/// Reads `--campaigns` paths: files, or folders read recursively in file-name order.
package struct CampaignFileReader: Sendable {
    /// Readers by lower-cased file extension; `json` is built in.
    package var formats: [String: CampaignFormatReader]

    package init(extraFormats: [String: CampaignFormatReader] = [:]) {
        formats = ["json": CampaignFileReader.readJSON]
        for (ext, reader) in extraFormats { formats[ext.lowercased()] = reader }
    }

    /// Loads every path in order. Never throws: problems are diagnostics.
    ///
    /// JSON files are independent, so they are read, parsed and decoded on all cores; the result is in
    /// load order all the same. Other formats are read one at a time (libxml2 keeps global state).
    package func load(paths: [String]) -> CampaignCatalog {
        var plan: [Planned] = []
        for path in paths {
            switch FileTree.kind(of: path) {
            case .missing:
                plan.append(.missing(path))
            case .file:
                // A file named explicitly is read even with an unknown extension, as JSON.
                let ext = FileTree.fileExtension(path)
                plan.append(.file(path, formats[ext] == nil ? "json" : ext))
            case .directory:
                for file in FileTree.files(under: path) {
                    let ext = FileTree.fileExtension(file)
                    if formats[ext] != nil { plan.append(.file(file, ext)) }
                }
            }
        }
        let results = ResultSlots<FileResult>(count: plan.count)
        let jsonFiles: [(index: Int, path: String)] = plan.enumerated().compactMap { i, item in
            if case .file(let path, "json") = item { (i, path) } else { nil }
        }
        let jsonReader = formats["json"]!
        DispatchQueue.concurrentPerform(iterations: jsonFiles.count) { k in
            results.set(jsonFiles[k].index, Self.read(jsonFiles[k].path, format: jsonReader))
        }
        var catalog = CampaignCatalog()
        // Diagnostics and files in load order; where each file's campaigns go in the one array.
        var offsets = [Int](repeating: 0, count: plan.count + 1)
        for (i, item) in plan.enumerated() {
            switch item {
            case .missing(let path):
                catalog.diagnostics.append(Diagnostic(.error, SourceLocation(file: path, line: 0), "no such file or folder"))
            case .file(let path, let ext):
                var result = results.get(i) ?? Self.read(path, format: formats[ext]!)
                if result.read { catalog.files.append(path) }
                catalog.diagnostics += result.diagnostics
                result.diagnostics = []
                results.set(i, result)
            }
            offsets[i + 1] = offsets[i] + (results.get(i)?.campaigns.count ?? 0)
        }
        catalog.campaigns = Self.joined(results, offsets: offsets)
        return catalog
    }

    /// Every file's campaigns in load order, in one array: each file's copied into its place and
    /// its own array freed on all cores (copying 100,000 campaigns, each a dozen references,
    /// and freeing them again, one core at a time, was a sixth of loading them).
    static func joined(_ results: ResultSlots<FileResult>, offsets: [Int]) -> [Campaign] {
        let total = offsets.last ?? 0
        return [Campaign](unsafeUninitializedCapacity: total) { buffer, initialized in
            let target = DisjointRanges(base: buffer.baseAddress)
            DispatchQueue.concurrentPerform(iterations: offsets.count - 1) { i in
                guard let campaigns = results.take(i)?.campaigns, !campaigns.isEmpty else { return }
                campaigns.withUnsafeBufferPointer { source in
                    (target.base! + offsets[i]).initialize(from: source.baseAddress!, count: source.count)
                }
            }
            initialized = total
        }
    }

    enum Planned: Sendable {
        case missing(String)
        case file(String, String)
    }

    struct FileResult: Sendable {
        var read: Bool
        var campaigns: [Campaign]
        var diagnostics: [Diagnostic]
    }

    static func read(_ path: String, format: CampaignFormatReader) -> FileResult {
        guard let data = FileManager.default.contents(atPath: path) else {
            return FileResult(read: false, campaigns: [], diagnostics: [Diagnostic(.error, SourceLocation(file: path, line: 0), "cannot read the file")])
        }
        let (campaigns, diagnostics) = format(path, [UInt8](data))
        return FileResult(read: true, campaigns: campaigns, diagnostics: diagnostics)
    }

    /// The Sensorberg JSON format in any of its three shapes.
    @Sendable package static func readJSON(path: String, bytes: [UInt8]) -> (campaigns: [Campaign], diagnostics: [Diagnostic]) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return ([], [Diagnostic(.error, SourceLocation(file: path, line: error.line, column: error.column), "not valid JSON: \(error.message)")])
        }
        // A large array of actions is decoded on all cores, in parts joined in order.
        if case .array(let elements) = document, let decoded = ActionArrayDecoding.decode(elements, file: path) {
            return decoded
        }
        var decoder = CampaignDecoder(file: path)
        let campaigns = decoder.decode(document: document)
        return (campaigns, decoder.diagnostics)
    }
}

/// One slot per planned file (or per part of a file, `ActionArrayDecoding`), filled by the
/// concurrent readers.
/// `@unchecked Sendable`: every slot is written by exactly one iteration of `concurrentPerform`
/// and read only after it returns; the lock makes those accesses well-ordered.
final class ResultSlots<Result: Sendable>: @unchecked Sendable {
    private var slots: [Result?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result) {
        lock.lock()
        slots[i] = result
        lock.unlock()
    }

    func get(_ i: Int) -> Result? {
        lock.lock()
        defer { lock.unlock() }
        return slots[i]
    }

    /// The slot's result, left empty (so that the caller holds the only reference to it).
    func take(_ i: Int) -> Result? {
        lock.lock()
        defer { lock.unlock() }
        let result = slots[i]
        slots[i] = nil
        return result
    }
}

/// Where `CampaignFileReader.joined` copies each file's campaigns.
/// `@unchecked Sendable`: each iteration of `concurrentPerform` initializes its own range of the
/// buffer (`offsets[i]..<offsets[i + 1]`, disjoint), and the buffer is read only after it returns.
struct DisjointRanges: @unchecked Sendable {
    let base: UnsafeMutablePointer<Campaign>?
}
