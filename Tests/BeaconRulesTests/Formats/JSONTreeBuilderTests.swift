@testable import BeaconRules
import Testing

/// The tree builder behind `JSONParser`: open items on stacks, short strings reused per document.
@Suite("JSON tree builder")
struct JSONTreeBuilderTests {
    /// Strings of every length around the inline limit (15 bytes) and the two-word load (16 bytes),
    /// in the middle of a document and right before its end, where fewer than 16 bytes remain.
    @Test(arguments: 0...20)
    func stringsOfEveryLengthReadBackAsWritten(length: Int) throws {
        let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
        let longer = text + "z"
        let middle = try JSONParser.parse(#"{"\#(text)": "\#(longer)", "k": ["\#(text)", "\#(longer)", "\#(text)"]}"#)
        #expect(middle.objectMembers?.map(\.key) == [text, "k"])
        #expect(middle[text] == .string(longer))
        #expect(middle["k"]?.arrayElements?.map(\.value) == [.string(text), .string(longer), .string(text)])
        #expect(try JSONParser.parse("\"\(text)\"") == .string(text))
        #expect(try JSONParser.parse("[\"\(longer)\",\"\(text)\"]").arrayElements?.map(\.value) == [.string(longer), .string(text)])
    }

    @Test func stringsThatShareTheirFirstBytesStayApart() throws {
        let keys = ["a", "ab", "abc", "abcdefgh", "abcdefghi", "abcdefgh\\u0000", "abcdefghijklmno", "abcdefghijklmnp", "abcdefghijklmnop"]
        let document = "{" + keys.enumerated().map { #""\#($1)": \#($0)"# }.joined(separator: ",") + "}"
        let members = try #require(try JSONParser.parse(document).objectMembers)
        #expect(members.map(\.key) == ["a", "ab", "abc", "abcdefgh", "abcdefghi", "abcdefgh\u{0}", "abcdefghijklmno", "abcdefghijklmnp", "abcdefghijklmnop"])
        #expect(members.map(\.value) == (0..<keys.count).map { .number(String($0)) })
    }

    @Test func numbersRepeatedAcrossADocumentKeepTheirText() throws {
        let value = try JSONParser.parse("[1, 1.0, 1, -0, 1e3, 123456789012345678901, 1]")
        #expect(value.compactText == "[1,1.0,1,-0,1e3,123456789012345678901,1]")
    }

    /// More items than the stacks start with (64), nested, so that they grow while containers are open.
    @Test func largeNestedContainersKeepEveryItemInOrder() throws {
        let inner = "{" + (0..<100).map { #""m\#($0)": [\#((0..<$0 % 7).map(String.init).joined(separator: ","))]"# }.joined(separator: ",") + "}"
        let document = "[" + Array(repeating: inner, count: 70).joined(separator: ",\n") + "]"
        let elements = try #require(try JSONParser.parse(document).arrayElements)
        #expect(elements.count == 70)
        #expect(elements.map(\.line) == Array(1...70))
        for element in elements {
            let members = try #require(element.value.objectMembers)
            #expect(members.map(\.key) == (0..<100).map { "m\($0)" })
            #expect(members.map { $0.value.arrayElements?.count } == (0..<100).map { $0 % 7 })
        }
    }

    /// A document that fails with containers still open throws the same error every time, and the
    /// builder's stacks are released with it.
    @Test(arguments: [
        (#"[{"a": [1, {"b": "x"}, "#, "expected a JSON value"),
        (#"{"a": {"b": {"c": [1, 2 3]}}}"#, "expected `,` or `]`"),
        (#"[{"k": "v"}, {"k": "\u12"}]"#, "invalid \\u escape"),
    ])
    func failuresInsideOpenContainersReportThePosition(text: String, fragment: String) {
        for _ in 0..<3 {
            #expect {
                _ = try JSONParser.parse(text)
            } throws: { error in
                (error as? JSONSyntaxError)?.message.contains(fragment) == true
            }
        }
    }

    @Test func escapedAndNonASCIIStringsAreNotTakenForShortOnes() throws {
        let value = try JSONParser.parse(#"["caf\u00e9", "café", "caf\u00e9", "tab\there", "tab\there"]"#)
        #expect(value.arrayElements?.map(\.value) == [.string("café"), .string("café"), .string("café"), .string("tab\there"), .string("tab\there")])
    }
}
