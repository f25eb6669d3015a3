import Foundation
import HTTPTypes
package import Hummingbird
import NIOCore

/// A POSTed form (`application/x-www-form-urlencoded`), bounded, with its CSRF token checked:
/// a POST without the console's token is answered 403 and does nothing.
package struct ConsoleForm: Sendable {
    package let fields: [String: String]
    /// The file names of uploaded files (`multipart/form-data`), by field.
    package var filenames: [String: String] = [:]

    package subscript(_ name: String) -> String? { fields[name] }

    package func filename(_ name: String) -> String? { filenames[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// Reads at most `limit` bytes of `request`'s body; throws 413 beyond, 403 without `csrf`.
    package static func read(_ request: Request, limit: Int, csrf: String) async throws -> ConsoleForm {
        let body = try await request.body.collect(upTo: limit)
        let type = request.headers[.contentType] ?? ""
        let form: ConsoleForm
        if type.hasPrefix("multipart/form-data"), let boundary = type.split(separator: "boundary=", maxSplits: 1).last.map(String.init) {
            form = multipart(Array(buffer: body), boundary: boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        } else {
            form = ConsoleForm(fields: decode(String(buffer: body)))
        }
        guard let sent = form["csrf"], ConsoleGuard<BasicRequestContext>.same(sent, csrf) else {
            throw HTTPError(.forbidden, message: "403: the form's CSRF token is missing or stale; reload the page and send it again")
        }
        return form
    }

    /// Checks the `X-CSRF-Token` header of a script's POST.
    package static func checkHeader(_ request: Request, csrf: String) throws {
        guard let sent = request.headers[.xCSRFToken], ConsoleGuard<BasicRequestContext>.same(sent, csrf) else {
            throw HTTPError(.forbidden, message: "403: X-CSRF-Token is missing or stale; reload the page")
        }
    }

    /// A `multipart/form-data` body: each part's `name` (and `filename`) from its
    /// Content-Disposition, its content as UTF-8 text.
    static func multipart(_ body: [UInt8], boundary: String) -> ConsoleForm {
        let delimiter = Array(("--" + boundary).utf8)
        var fields: [String: String] = [:], filenames: [String: String] = [:]
        var parts: [ArraySlice<UInt8>] = []
        var start: Int?
        var i = 0
        while i + delimiter.count <= body.count {
            if body[i] == delimiter[0] && body[i..<(i + delimiter.count)].elementsEqual(delimiter) {
                if let s = start { parts.append(body[s..<i]) }
                i += delimiter.count
                start = i
            } else {
                i += 1
            }
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        for part in parts {
            guard let split = part.firstRange(of: separator) else { continue }
            let head = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            var content = part[split.upperBound...]
            if content.suffix(2).elementsEqual([13, 10]) { content = content.dropLast(2) }
            func parameter(_ key: String) -> String? {
                guard let range = head.range(of: key + "=\"") else { return nil }
                return head[range.upperBound...].split(separator: "\"", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            }
            guard let name = parameter(" name") ?? parameter(";name") else { continue }
            fields[name] = String(decoding: content, as: UTF8.self)
            if let filename = parameter("filename") { filenames[name] = filename }
        }
        var form = ConsoleForm(fields: fields)
        form.filenames = filenames
        return form
    }

    /// `a=1&b=x+y` to fields; `+` is a space, `%XX` a byte.
    package static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func clean(_ s: Substring) -> String { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            let name = clean(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? clean(parts[1]) : "" }
        }
        return fields
    }
}

extension HTTPField.Name {
    static let xCSRFToken = Self("X-CSRF-Token")!
}
