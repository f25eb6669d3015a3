import Foundation

/// A command quoted in the README or a guide, with the output the document shows for it.
///
/// The documents use two kinds of fenced blocks for commands, and every such block is run:
/// - `console`: `$ command` lines, each followed by the output it prints (stdout and stderr as a
///   terminal shows them). A line `...` stands for any number of lines the document leaves out.
/// - `sh`: commands only, no output shown; each must exit 0.
/// A `beaconrules serve` or `beaconrules http` command is started on a free port and must print its
/// `listening on` line; in a `console` block it ends with `&` and runs in the background for the
/// rest of the block (its port stands where the block says 7700, and `kill %1` stops it); in an
/// `sh` block it is stopped at once. Either way it must exit 0 on SIGTERM.
/// A command may go on over lines that end with `\`. Paths under `/tmp/` are moved into a folder of
/// the test's own, in commands and in the shown output alike.
struct DocumentedCommand: CustomStringConvertible, Sendable {
    enum Kind: Sendable { case console, sh }

    var document: String
    var line: Int
    /// Which fenced block of the document, counted from 0: a server started in a block lives until its end.
    var block: Int
    var kind: Kind
    var text: String
    /// The output shown under a `console` command; nil for `sh`.
    var shownOutput: [String]?

    var description: String { "\(document):\(line): \(text)" }

    /// Every command of every fenced `console` or `sh` block of the document.
    static func all(in document: String, text: String) -> [DocumentedCommand] {
        var commands: [DocumentedCommand] = []
        var inFence = false
        var block = -1
        var kind: Kind?
        var pending: String?
        var pendingLine = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let number = index + 1
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                if inFence { block += 1 }
                switch line.trimmingCharacters(in: .whitespaces).dropFirst(3) {
                case "console" where inFence: kind = .console
                case "sh" where inFence: kind = .sh
                default: kind = nil  // a closing fence, or a block of JSON, Swift, text...
                }
                continue
            }
            guard let current = kind else { continue }
            if let started = pending {
                let joined = started + "\n" + line
                if line.hasSuffix("\\") { pending = joined } else {
                    commands.append(DocumentedCommand(document: document, line: pendingLine, block: block, kind: current, text: joined,
                                                      shownOutput: current == .console ? [] : nil))
                    pending = nil
                }
                continue
            }
            let commandText: String?
            switch current {
            case .console: commandText = line.hasPrefix("$ ") ? String(line.dropFirst(2)) : nil
            case .sh:
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                commandText = trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : line
            }
            if let commandText {
                if commandText.hasSuffix("\\") {
                    pending = commandText
                    pendingLine = number
                } else {
                    commands.append(DocumentedCommand(document: document, line: number, block: block, kind: current, text: commandText,
                                                      shownOutput: current == .console ? [] : nil))
                }
            } else if current == .console, !commands.isEmpty, commands[commands.count - 1].document == document {
                commands[commands.count - 1].shownOutput?.append(line)
            }
        }
        return commands
    }

    /// Whether `actual` is the shown output: line for line, where a shown `...` line takes any
    /// number of actual lines, and trailing blank lines do not count.
    static func matches(shown: [String], actual: [String]) -> Bool {
        let shown = shown.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed().map { $0 }
        let actual = actual.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed().map { $0 }
        func match(_ s: Int, _ a: Int) -> Bool {
            if s == shown.count { return a == actual.count }
            if shown[s].trimmingCharacters(in: .whitespaces) == "..." {
                for next in a...actual.count where match(s + 1, next) { return true }
                return false
            }
            guard a < actual.count, shown[s].trimmingTrailingSpaces == actual[a].trimmingTrailingSpaces else { return false }
            return match(s + 1, a + 1)
        }
        return match(0, 0)
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.last == " " || copy.last == "\t" { copy.removeLast() }
        return copy
    }
}
