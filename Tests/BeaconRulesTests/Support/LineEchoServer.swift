import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for `serve` on 127.0.0.1: takes one connection, answers every line it reads with
/// `{"ok":true}` and keeps the lines, so a test can read what a client put on the wire. Its
/// thread never waits for the client unbounded: it looks a tenth of a second at a time, so that
/// `stop()` ends it whether a client never came or never closed.
final class LineEchoServer: Sendable {
    let port: Int
    private let received = Mutex<[String]>([])
    private let done = Mutex(false)
    private let stopping = Atomic<Bool>(false)

    struct Failure: Error, CustomStringConvertible { var description: String }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 1) == 0 else { close(listener); throw Failure(description: "bind/listen: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            defer { close(listener); done.withLock { $0 = true } }
            guard readable(listener) else { return }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let reply = Array("{\"ok\":true}\n".utf8)
            while readable(connection) {
                let n = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                pending += buffer[0..<n]
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    received.withLock { $0.append(line) }
                    _ = reply.withUnsafeBytes { write(connection, $0.baseAddress!, $0.count) }
                }
            }
        }
        thread.start()
    }

    /// Waits until `descriptor` can be read (a client to accept, bytes or the end of a
    /// connection), a tenth of a second at a time: false once `stop()` was called.
    private func readable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !stopping.load(ordering: .acquiring) {
            let ready = poll(&entry, 1, 100)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
        return false
    }

    /// The lines read, once the client has closed its connection (waits at most 30 s).
    func lines() -> [String] {
        for _ in 0..<3000 where !done.withLock({ $0 }) { usleep(10_000) }
        return received.withLock { $0 }
    }

    /// Ends the server's thread, whether a client never connected or never closed its connection,
    /// and waits until it has (at most 30 s; then false). The lines read so far stay.
    @discardableResult
    func stop() -> Bool {
        stopping.store(true, ordering: .releasing)
        for _ in 0..<3000 where !done.withLock({ $0 }) { usleep(10_000) }
        return done.withLock { $0 }
    }
}
