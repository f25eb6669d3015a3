import Foundation
import Testing

/// Every public declaration of the two library products says what it is for in a doc comment of
/// its own (ARCHITECTURE.md, "Public is what a user needs"): `scripts/undocumented-public.sh`
/// lists those that do not, and there are none. A new public declaration comes with its comment,
/// or is `package`.
@Suite("public API: every declaration documented")
struct PublicAPIDocumentationTests {
    @Test func noPublicDeclarationOfTheLibraryProductsLacksADocComment() throws {
        let result = try Self.script(["--list"])
        #expect(result.status == 0)
        #expect(result.stdout == "0\n", "public declarations without a doc comment:\n\(result.stdout)")
    }

    /// The script finds what it is for: a public member, a public enum's case and a public
    /// protocol's requirement without a comment are listed; documented ones are not.
    @Test func theScriptListsWhatHasNoComment() throws {
        let folder = Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try """
        /// Documented.
        public struct Shown {
            /// Documented.
            public var kept: Int
            public var bare: Int
            @inlinable
            public init() { kept = 0; bare = 0 }
        }
        /// Documented.
        public enum Choice {
            /// Documented.
            case one
            case two, three
        }
        /// Documented.
        public protocol Asked {
            func plain()
        }
        enum Hidden {
            case notPublic
        }
        """.write(toFile: folder + "/Sample.swift", atomically: true, encoding: .utf8)
        let lines = try Self.script(["--list", folder]).stdout
            .split(separator: "\n").map { $0.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(lines == ["public var bare: Int", "public init() { kept = 0; bare = 0 }", "case two, three", "func plain()", "4"])
    }

    /// `scripts/undocumented-public.sh` with these arguments.
    static func script(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run([Paths.repo("scripts/undocumented-public.sh")] + arguments, executable: "/bin/bash")
    }
}
