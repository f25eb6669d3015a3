import Foundation
import Testing

@Suite("the DocC article and the README show code that compiles")
struct ArticleTests {
    static let article = "Sources/BeaconRulesService/BeaconRulesService.docc/EmbeddingBeaconRules.md"

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ text: String) -> [String] {
        text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
    }

    @Test func everyCodeBlockOfTheArticleIsCompiledCodeOfTheExampleOrTheSnippets() {
        let compiled = Paths.read(Paths.repo("Examples/MuseumEmbedding/main.swift"))
            + Paths.read(Paths.repo("Tests/BeaconRulesTests/Service/ArticleSnippets.swift"))
        let blocks = Self.swiftBlocks(Paths.read(Paths.repo(Self.article)))
        #expect(blocks.count == 3)
        for block in blocks {
            #expect(compiled.contains(block), "not compiled as shown:\n\(block)")
        }
    }

    @Test func theLibraryGuideShowsTheExampleProgramAsItIs() {
        let example = Paths.read(Paths.repo("Examples/MuseumEmbedding/main.swift"))
        let guide = Paths.read(Paths.repo("docs/library.md"))
        #expect(Self.swiftBlocks(guide).first.map { example.contains($0) } == true)
        // At most ten lines of its own (imports, blank lines and comments left out).
        let own = example.split(separator: "\n").filter { !$0.hasPrefix("//") && !$0.hasPrefix("import ") && !$0.isEmpty }
        #expect(own.count <= 10)
    }

    @Test func theReadmeShowsTheExampleProgramLineForLine() throws {
        // The example's source without its leading comment is exactly the README's block, so the
        // README cannot show a program that no longer compiles or no longer prints the records.
        let source = Paths.read(Paths.repo("Examples/MuseumEmbedding/main.swift"))
        let program: [Substring] = Array(source.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("//") })
        let readme = Paths.read(Paths.repo("README.md"))
        let section = try #require(readme.components(separatedBy: "## As a library\n").dropFirst().first)
        let block = try #require(Self.swiftBlocks(section).first)
        #expect(program.count > 5)
        #expect(block.split(separator: "\n", omittingEmptySubsequences: false) == program)
        #expect(readme.contains("(Sources/BeaconRulesService/BeaconRulesService.docc/EmbeddingBeaconRules.md)"))
        #expect(readme.contains("(docs/library.md)"))
    }
}
