import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents all at once: temporary file, fsync, rename, fsync of the folder.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws(StoreError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError(path: path, line: nil, message: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw StoreError(path: path, line: nil, message: "cannot write: \(reason)")
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw StoreError(path: path, line: nil, message: "cannot flush to disk: \(reason)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError(path: path, line: nil, message: "cannot replace the file: \(reason)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        let dirfd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY)
        if dirfd >= 0 { fsync(dirfd); close(dirfd) }
    }
}
