import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file, gunzipping it when it is gzip (zlib passes plain files through unchanged),
/// so recorded scans can be given as they are stored (`.json.gz`) or already unpacked.
package enum CompressedFile {
    /// The file's (decompressed) bytes; `-` reads stdin.
    package static func read(_ path: String) throws(ReadError) -> [UInt8] {
        let file: gzFile?
        if path == "-" { file = gzdopen(dup(0), "rb") } else { file = gzopen(path, "rb") }
        guard let file else { throw ReadError(reason: "\(path): cannot open: \(String(cString: strerror(errno)))") }
        defer { gzclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if n < 0 {
                var code: Int32 = 0
                let message = gzerror(file, &code).map { String(cString: $0) } ?? "unknown error"
                throw ReadError(reason: "\(path): not readable as gzip: \(message)")
            }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<Int(n)])
        }
    }
}
