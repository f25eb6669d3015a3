import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client for 127.0.0.1, one connection per request (`Connection: close`), for
/// the tests that talk to chromedriver (WebDriver is HTTP and JSON) and to the console.
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static func request(port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
        // Some servers (chromedriver) keep the connection open whatever the request says: the
        // answer ends where its Content-Length or its last chunk says, else at the close. A
        // server that says nothing for two minutes is a failure, not a hang.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !isComplete(answer) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Failure(description: "\(method) \(path): no answer from 127.0.0.1:\(port) (errno \(errno))") }
            guard n > 0 else { break }
            answer += buffer[0..<n]
        }
        return try parse(answer)
    }

    /// JSON in, JSON out.
    static func json(port: Int, _ method: String, _ path: String, _ object: Any? = nil) throws -> [String: Any] {
        let body = try object.map { try JSONSerialization.data(withJSONObject: $0) }.map { [UInt8]($0) } ?? []
        let answer = try request(port: port, method, path, headers: ["Content-Type": "application/json"], body: body)
        guard let parsed = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] else {
            throw Failure(description: "\(method) \(path): not a JSON object: \(answer.text.prefix(300))")
        }
        return parsed
    }

    /// Whether `bytes` hold a whole answer: its head, and the body its head announces.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let end = bytes.firstRange(of: [13, 10, 13, 10]) else { return false }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased()
        let body = bytes.count - end.upperBound
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix("content-length:"), let length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) {
                return body >= length
            }
            if line.hasPrefix("transfer-encoding:") && line.contains("chunked") {
                return bytes[end.upperBound...].firstRange(of: Array("\r\n0\r\n\r\n".utf8)) != nil
                    || bytes[end.upperBound...].starts(with: Array("0\r\n\r\n".utf8))
            }
        }
        return false
    }

    private static func parse(_ bytes: [UInt8]) throws -> Answer {
        guard let end = bytes.firstRange(of: [13, 10, 13, 10]) else { throw Failure(description: "no HTTP head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            var decoded: [UInt8] = []
            var i = 0
            while let lineEnd = body[i...].firstRange(of: [13, 10]) {
                let size = Int(String(decoding: body[i..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
                if size == 0 { break }
                decoded += body[lineEnd.upperBound..<min(lineEnd.upperBound + size, body.count)]
                i = lineEnd.upperBound + size + 2
                if i >= body.count { break }
            }
            body = decoded
        }
        return Answer(status: status, headers: headers, body: body)
    }
}
