package import BeaconRules
import Foundation

/// Reads a `Locales/` folder: one `<tag>.json` per language.
package enum LocaleFiles {
    package static func load(directory: String) -> (table: LocaleTable, diagnostics: [Diagnostic]) {
        guard FileTree.kind(of: directory) == .directory else {
            return (LocaleTable(), [Diagnostic(.error, SourceLocation(file: directory, line: 0), "no such locales folder (expected one <language>.json per language, e.g. Locales/en.json)")])
        }
        var table = LocaleTable()
        var diagnostics: [Diagnostic] = []
        for path in FileTree.files(under: directory) where FileTree.fileExtension(path) == "json" {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let tag = String(name.dropLast(5))
            guard let data = FileManager.default.contents(atPath: path) else {
                diagnostics.append(Diagnostic(.error, SourceLocation(file: path, line: 0), "cannot read the file"))
                continue
            }
            do {
                let document = try JSONParser.parse([UInt8](data))
                let (entry, found) = LocaleTable.parseEntry(tag: tag, document: document, file: path)
                diagnostics += found
                if let entry { table.add(entry) }
            } catch {
                diagnostics.append(Diagnostic(.error, SourceLocation(file: path, line: error.line, column: error.column), "not valid JSON: \(error.message)"))
            }
        }
        return (table, diagnostics)
    }
}
