/// The apps a process serves when it serves several (`--apps FILE`), and the one rule by which a
/// line names its app, for files (`replay --apps`) and the line protocol (`serve --apps`) alike:
/// every line is a JSON object whose member `app` (the first, if it has several) is a string, the
/// id of an app of the file. A line that names none, or an app the file does not have, is refused
/// with a message that says what was expected, and changes nothing.
package struct LineApps: Sendable {
    /// The apps' ids, in the file's order: a line's app is its index here.
    package let ids: [String]
    private let byID: [String: Int]

    package init(ids: [String]) {
        self.ids = ids
        var byID: [String: Int] = [:]
        for (index, id) in ids.enumerated() where byID[id] == nil { byID[id] = index }
        self.byID = byID
    }

    /// Why a line names no app of the file: the message its refusal gives.
    package struct Refusal: Error, Sendable, Equatable {
        package var message: String
    }

    /// The index (in `ids`) of the app `line` names.
    package func app(of line: UnsafeBufferPointer<UInt8>) -> Result<Int, Refusal> {
        guard let members = (try? JSONParser.parse(line))?.objectMembers else {
            return .failure(Refusal(message: "not a JSON object with an `app` member: with --apps every line names its app, one of \(list)"))
        }
        guard let id = members.first(where: { $0.key == "app" })?.value.stringValue else {
            return .failure(Refusal(message: "missing `app` (a string): with --apps every line names its app, one of \(list)"))
        }
        guard let index = byID[id] else {
            return .failure(Refusal(message: "unknown app \"\(Self.shown(id))\": the apps file has \(list)"))
        }
        return .success(index)
    }

    /// `app(of:)` of a line as text.
    package func app(of line: some StringProtocol) -> Result<Int, Refusal> {
        var text = String(line)
        return text.withUTF8 { app(of: $0) }
    }

    /// The ids as a message lists them: `"museum", "gallery"`.
    private var list: String { ids.map { "\"\($0)\"" }.joined(separator: ", ") }

    /// An id as a refusal quotes it: at most 64 characters (an app id's longest), so that a
    /// hostile line cannot make its reply long.
    private static func shown(_ id: String) -> String {
        id.count <= 64 ? id : String(id.prefix(64)) + "..."
    }
}
