import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The campaign files and folders one app was started with (`--campaigns`), and the only places
/// the console writes: a save names a file inside one of them (no `..`, no symlink that leads
/// out, checked on the resolved path), written atomically (a temporary file beside it, then
/// renamed over it), so that a reader or a crash sees the old file or the new, never half of one.
package struct CampaignFolders: Sendable {
    /// As given on the command line.
    package let paths: [String]
    /// The folder of per-language defaults (`--locales`).
    package let locales: String?

    package init(paths: [String], locales: String?) {
        self.paths = paths
        self.locales = locales
    }

    /// Why a file may not be written.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// `file` resolved, when it is a JSON campaign file inside one of the campaign paths.
    package func writable(_ file: String) throws(Refusal) -> String {
        guard file.hasSuffix(".json") else {
            throw Refusal(description: "\(file): only JSON campaign files are edited here (XML exports are read-only)")
        }
        guard !file.split(separator: "/").contains("..") else {
            throw Refusal(description: "\(file): a path with `..` is never written")
        }
        let resolved = URL(fileURLWithPath: file).resolvingSymlinksInPath().standardizedFileURL.path
        for root in paths {
            let top = URL(fileURLWithPath: root).resolvingSymlinksInPath().standardizedFileURL.path
            if resolved == top || resolved.hasPrefix(top.hasSuffix("/") ? top : top + "/") { return resolved }
        }
        throw Refusal(description: "\(file): resolves to \(resolved), outside the campaign folders (\(paths.joined(separator: ", ")))")
    }

    /// Writes `bytes` to `path` (already `writable`) through a temporary file in the same folder.
    package func write(_ bytes: [UInt8], to path: String) throws(Refusal) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/." + (path as NSString).lastPathComponent + ".console-\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw Refusal(description: "\(path): cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Refusal(description: "\(path): cannot replace it: \(reason)")
        }
    }
}
