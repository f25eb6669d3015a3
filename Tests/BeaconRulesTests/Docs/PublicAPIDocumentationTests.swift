import Foundation
import Testing

/// Every public declaration of the two library products says what it is for in a doc comment of
/// its own (ARCHITECTURE.md, "Public is what a user needs"): `scripts/undocumented-public.sh`
/// lists those that do not, and there are none. A new public declaration comes with its comment,
/// or is `package`.
@Suite("public API: every declaration documented")
struct PublicAPIDocumentationTests {
    @Test func noPublicDeclarationOfTheLibraryProductsLacksADocComment() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Paths.repo("scripts/undocumented-public.sh"), "--list"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == "0\n", "public declarations without a doc comment:\n\(text)")
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Paths.repo("scripts/undocumented-public.sh"), "--list", folder]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? "" }
        process.waitUntilExit()
        #expect(lines == ["public var bare: Int", "public init() { kept = 0; bare = 0 }", "case two, three", "func plain()", "4"])
    }
}
