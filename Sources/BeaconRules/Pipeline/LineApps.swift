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

    /// Line `number` (not blank) as `intake` reads it, and the index (in `ids`) of the app it
    /// names, from one scan of the line: the event's, which meets its `app` on the way
    /// (`EventParser.AppMember`). Only a line that is not input is looked at again, as JSON, to
    /// say why it names no app or to find the app of an outbox request (or of a line refused
    /// whose app is right: it is answered with the intake's message). A refusal comes first: a
    /// line naming no app of the file is answered with it, whatever else it says.
    package func read(_ line: UnsafeBufferPointer<UInt8>, number: Int, intake: LineIntake) -> Result<(app: Int, line: ReadLine), Refusal> {
        var member = EventParser.AppMember.absent
        let read = intake.read(line, number: number) { line, fallbackID throws(EventError) in
            try EventParser.parseInputInGeneral(line: line, fallbackID: fallbackID(), app: &member)
        }
        guard case .input = read else { return app(of: line).map { (app: $0, line: read) } }
        guard case .string(let id) = member else { return .failure(missing) }
        return app(named: id).map { (app: $0, line: read) }
    }

    /// `read` of a line as text.
    package func read(_ line: some StringProtocol, number: Int, intake: LineIntake) -> Result<(app: Int, line: ReadLine), Refusal> {
        var text = String(line)
        return text.withUTF8 { read($0, number: number, intake: intake) }
    }

    /// The index (in `ids`) of the app `line` names, read as JSON.
    package func app(of line: UnsafeBufferPointer<UInt8>) -> Result<Int, Refusal> {
        guard let members = (try? JSONParser.parse(line))?.objectMembers else {
            return .failure(Refusal(message: "not a JSON object with an `app` member: with --apps every line names its app, one of \(list)"))
        }
        guard let id = members.first(where: { $0.key == "app" })?.value.stringValue else { return .failure(missing) }
        return app(named: id)
    }

    /// The index of app `id`, or the refusal of an app the file does not have.
    private func app(named id: String) -> Result<Int, Refusal> {
        guard let index = byID[id] else {
            return .failure(Refusal(message: "unknown app \"\(Self.shown(id))\": the apps file has \(list)"))
        }
        return .success(index)
    }

    /// The refusal of a line whose (first) `app` is missing or not a string.
    private var missing: Refusal {
        Refusal(message: "missing `app` (a string): with --apps every line names its app, one of \(list)")
    }

    /// The ids as a message lists them: `"museum", "gallery"`.
    private var list: String { ids.map { "\"\($0)\"" }.joined(separator: ", ") }

    /// An id as a refusal quotes it: at most 64 characters (an app id's longest), so that a
    /// hostile line cannot make its reply long.
    private static func shown(_ id: String) -> String {
        id.count <= 64 ? id : String(id.prefix(64)) + "..."
    }
}
