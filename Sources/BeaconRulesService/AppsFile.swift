public import BeaconRules
import Foundation

/// Reads `--apps FILE`: `{"apps": [{"id": "museum", "keys": ["..."], "campaigns": ["PATH", ...],
/// "locales": "DIR"}, ...]}`. Paths are relative to the file's folder. Every problem is
/// reported at once, each with its line and column; nothing of a file with a problem is used.
public enum AppsFile {
    /// The apps of the file at `path`, in the file's order.
    public static func read(path: String) throws(AppsFileError) -> [AppDefinition] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppsFileError(file: path, problems: [.init(line: 0, column: 0, message: "cannot read the apps file")])
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(Array(data), file: path, folder: folder)
    }

    /// The apps of a document already read; relative paths are taken from `folder`.
    public static func parse(_ bytes: [UInt8], file: String, folder: String) throws(AppsFileError) -> [AppDefinition] {
        var reader = Reader(file: file, folder: folder)
        let apps = reader.apps(bytes)
        if !reader.problems.isEmpty { throw AppsFileError(file: file, problems: reader.problems) }
        return apps
    }

    /// The members an app object may have.
    static let appMembers = ["id", "keys", "campaigns", "locales"]

    /// One pass over the document, collecting every problem.
    private struct Reader {
        let file: String
        let folder: String
        var problems: [AppsFileError.Problem] = []

        mutating func problem(_ line: Int, _ column: Int, _ message: String) {
            problems.append(.init(line: line, column: column, message: message))
        }

        mutating func apps(_ bytes: [UInt8]) -> [AppDefinition] {
            let document: JSONValue
            do { document = try JSONParser.parse(bytes) } catch {
                problem(error.line, error.column, error.message)
                return []
            }
            guard let members = document.objectMembers else {
                problem(1, 1, "expected an object {\"apps\": [...]}, found \(document.kindName)")
                return []
            }
            for member in members where member.key != "apps" {
                problem(member.line, member.column, "unknown member \"\(member.key)\"; expected only \"apps\"")
            }
            guard let list = members.first(where: { $0.key == "apps" }) else {
                problem(1, 1, "no \"apps\" member; expected {\"apps\": [{\"id\": ..., \"keys\": [...], \"campaigns\": [...]}]}")
                return []
            }
            guard let elements = list.value.arrayElements, !elements.isEmpty else {
                problem(list.line, list.column, "\"apps\" must be a non-empty array of app objects")
                return []
            }
            var apps: [AppDefinition] = []
            var ids: [String: Int] = [:]
            var keys: [String: String] = [:]
            for element in elements {
                guard let app = app(element) else { continue }
                if let line = ids[app.id] {
                    problem(element.line, element.column, "app id \"\(app.id)\" is already the id of the app at line \(line)")
                    continue
                }
                ids[app.id] = element.line
                for key in app.keys {
                    // A key written twice in one app names that app twice: no conflict.
                    if let other = keys[key], other != app.id {
                        problem(element.line, element.column, "app \"\(app.id)\": a key is already a key of app \"\(other)\" (a key names one app)")
                    }
                    keys[key] = app.id
                }
                apps.append(app)
            }
            return apps
        }

        mutating func app(_ element: JSONElement) -> AppDefinition? {
            guard let members = element.value.objectMembers else {
                problem(element.line, element.column, "an app must be an object, found \(element.value.kindName)")
                return nil
            }
            let count = problems.count
            for member in members where !AppsFile.appMembers.contains(member.key) {
                problem(member.line, member.column, "unknown member \"\(member.key)\" of an app; expected \(AppsFile.appMembers.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            func member(_ key: String) -> JSONMember? { members.first { $0.key == key } }
            var id = ""
            if let m = member("id") {
                if let text = m.value.stringValue, AppDefinition.isValidID(text) { id = text } else {
                    problem(m.line, m.column, "\"id\" must be 1 to 64 of A-Z a-z 0-9 _ -")
                }
            } else {
                problem(element.line, element.column, "an app needs an \"id\"")
            }
            let keys = strings(member("keys"), name: "keys", element: element)
            let campaigns = strings(member("campaigns"), name: "campaigns", element: element).map(resolve)
            var locales: String?
            if let m = member("locales") {
                if let text = m.value.stringValue, !text.isEmpty { locales = resolve(text) } else {
                    problem(m.line, m.column, "\"locales\" must be a folder's path")
                }
            }
            guard problems.count == count else { return nil }
            return AppDefinition(id: id, keys: keys, campaigns: campaigns, locales: locales)
        }

        /// A non-empty array of non-empty strings.
        mutating func strings(_ member: JSONMember?, name: String, element: JSONElement) -> [String] {
            guard let member else {
                problem(element.line, element.column, "an app needs \"\(name)\", a non-empty array of strings")
                return []
            }
            guard let elements = member.value.arrayElements, !elements.isEmpty else {
                problem(member.line, member.column, "\"\(name)\" must be a non-empty array of strings")
                return []
            }
            var values: [String] = []
            for value in elements {
                if let text = value.value.stringValue, !text.isEmpty { values.append(text) } else {
                    problem(value.line, value.column, "\"\(name)\" holds strings only, found \(value.value.kindName)")
                }
            }
            return values
        }

        /// `path` from the apps file's folder, unless absolute.
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
        }
    }
}

/// An apps file that cannot be used: every problem, each at its line and column.
public struct AppsFileError: Error, Sendable, CustomStringConvertible {
    /// One problem, where it is.
    public struct Problem: Sendable, Hashable {
        /// 1-based; 0 when the file could not be read.
        public var line: Int
        /// 1-based; 0 when the file could not be read.
        public var column: Int
        /// What is wrong, and what was expected.
        public var message: String
    }

    /// The apps file's path.
    public var file: String
    /// Every problem found, in the file's order.
    public var problems: [Problem]

    /// `FILE:LINE:COLUMN: message`, one a line.
    public var description: String {
        problems.map { problem in
            problem.line > 0 ? "\(file):\(problem.line):\(problem.column): \(problem.message)" : "\(file): \(problem.message)"
        }.joined(separator: "\n")
    }
}
