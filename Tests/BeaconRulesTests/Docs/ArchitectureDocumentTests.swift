import Foundation
import Testing

/// ARCHITECTURE.md stays true: every file, folder, type and member it names in backticks exists in
/// the code, and every count it quotes as "Count: `COMMAND` (N)" is what COMMAND prints today.
@Suite("ARCHITECTURE.md is true")
struct ArchitectureDocumentTests {
    static let text = Paths.read(Paths.repo("ARCHITECTURE.md"))

    /// Names from outside the package that the document mentions on purpose (the standard library,
    /// Foundation, swift-service-lifecycle, C), and the one-letter prefix of the C targets.
    static let outsideNames: Set<String> = ["C", "Codable", "JSONDecoder", "JSONEncoder", "Service", "Synchronization", "Sendable"]

    /// Every Swift file of the package, as paths relative to the repository root.
    static let swiftFiles: [String] = {
        var files: [String] = []
        for folder in ["Sources", "Tests", "Examples"] {
            let enumerator = FileManager.default.enumerator(atPath: Paths.repo(folder))
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".swift") { files.append(folder + "/" + path) }
            }
        }
        return files
    }()

    /// What the package's Swift files declare: type names (and the names extensions extend), and
    /// member names (functions, properties, cases).
    static let declarations: (types: Set<String>, members: Set<String>) = {
        var types: Set<String> = [], members: Set<String> = []
        let typePattern = /(?:struct|class|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][A-Za-z0-9_]*)/
        let memberPattern = /(?:func|var|let|case)\s+`?([A-Za-z_][A-Za-z0-9_]*)/
        for file in swiftFiles {
            let source = Paths.read(Paths.repo(file))
            for match in source.matches(of: typePattern) { types.insert(String(match.output.1)) }
            for match in source.matches(of: memberPattern) { members.insert(String(match.output.1)) }
        }
        return (types, members)
    }()

    /// Targets and products of Package.swift (`name: "..."`), and the folders under Sources.
    static let targets: Set<String> = {
        let manifest = Paths.read(Paths.repo("Package.swift"))
        var names = Set(manifest.matches(of: /name:\s*"([^"]+)"/).map { String($0.output.1) })
        names.formUnion((try? FileManager.default.contentsOfDirectory(atPath: Paths.repo("Sources"))) ?? [])
        return names
    }()

    /// The document's backticked spans, each once.
    static let spans: [String] = {
        var seen: Set<String> = [], spans: [String] = []
        for match in text.matches(of: /`([^`\n]+)`/) where seen.insert(String(match.output.1)).inserted {
            spans.append(String(match.output.1))
        }
        return spans
    }()

    static func isKnownName(_ name: String) -> Bool {
        if outsideNames.contains(name) || targets.contains(name) || declarations.types.contains(name) { return true }
        // `RulesEngine+Matching`: a file of extensions, named TYPE+TOPIC.
        return swiftFiles.contains { $0.hasSuffix("/" + name + ".swift") }
    }

    @Test func theDocumentExistsAndNamesTheCode() {
        #expect(Self.text.count > 1_000)
        #expect(Self.spans.count > 100)
    }

    @Test func everySwiftFileItNamesExists() {
        // A command (it has a space) is run by `everyCountItQuotesIsToday`, not looked up.
        for span in Self.spans where span.hasSuffix(".swift") && !span.contains(" ") {
            // `Tests/.../Performance/ReferencePath.swift`: `...` stands for any folders.
            let parts = span.components(separatedBy: "/.../")
            let found = Self.swiftFiles.contains { file in
                parts.count == 2 ? file.hasPrefix(parts[0] + "/") && file.hasSuffix("/" + parts[1]) : ("/" + file).hasSuffix("/" + span)
            }
            #expect(found, "ARCHITECTURE.md names `\(span)`, which is no file of the package")
        }
    }

    @Test func everyFolderItNamesExists() {
        for span in Self.spans where span.hasSuffix("/") && !span.contains(" ") {
            let folder = String(span.dropLast())
            let inATarget = Self.targets.contains { FileManager.default.fileExists(atPath: Paths.repo("Sources/\($0)/\(folder)")) }
            #expect(inATarget || FileManager.default.fileExists(atPath: Paths.repo(folder)), "ARCHITECTURE.md names the folder `\(span)`, which no target has")
        }
        for span in Self.spans where span.contains("/") && !span.hasSuffix("/") && !span.hasSuffix(".swift") && !span.contains(" ") {
            guard !span.hasPrefix("/"), span.first?.isLetter == true else { continue }  // `/metrics`: a URL path
            #expect(FileManager.default.fileExists(atPath: Paths.repo(span)), "ARCHITECTURE.md names `\(span)`, which is not in the repository")
        }
    }

    @Test func everyTypeItNamesIsDeclared() {
        for span in Self.spans where span.wholeMatch(of: /[A-Z][A-Za-z0-9]*(\+[A-Za-z0-9]+)?/) != nil {
            #expect(Self.isKnownName(span), "ARCHITECTURE.md names `\(span)`, which the package does not declare")
        }
    }

    @Test func everyMemberItNamesIsDeclared() {
        // `Type.member`, `Type.member(label:)`, `member(label:)`, `camelCaseMember`.
        for span in Self.spans where !span.hasSuffix(".swift") {
            if let match = span.wholeMatch(of: /([A-Z][A-Za-z0-9]*)\.([a-z][A-Za-z0-9]*)(\(.*\))?/) {
                let type = Self.isKnownName(String(match.output.1)), member = Self.declarations.members.contains(String(match.output.2))
                #expect(type, "ARCHITECTURE.md names `\(span)`: no type \(match.output.1)")
                #expect(member, "ARCHITECTURE.md names `\(span)`: no member \(match.output.2)")
            } else if let match = span.wholeMatch(of: /([a-z][A-Za-z0-9]*)\((.*)\)/) {
                let declared = Self.declarations.members.contains(String(match.output.1))
                #expect(declared, "ARCHITECTURE.md names `\(span)`, which the package does not declare")
            } else if span.wholeMatch(of: /[a-z]+[A-Z][A-Za-z0-9]*/) != nil {
                let declared = Self.declarations.members.contains(span)
                #expect(declared, "ARCHITECTURE.md names `\(span)`, which the package does not declare")
            }
        }
    }

    @Test func everyCountItQuotesIsToday() throws {
        let counts = Self.text.matches(of: /Count: `([^`]+)` \(([0-9,]+)\)/)
        #expect(!counts.isEmpty, "ARCHITECTURE.md quotes no count in the form Count: `COMMAND` (N)")
        for count in counts {
            let command = count.output.1.split(whereSeparator: \.isNewline).joined(separator: " ")
            let quoted = Int(count.output.2.replacingOccurrences(of: ",", with: ""))
            let (status, output) = try DocumentedCommandTests.run(command)
            #expect(status == 0, "`\(command)` failed: \(output)")
            let printed = Int(output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(printed == quoted, "ARCHITECTURE.md quotes \(quoted ?? -1) for `\(command)`, which prints \(output.prefix(300))")
        }
    }
}
