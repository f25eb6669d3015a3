@testable import BeaconRules
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    @Test func numbersKeepTheirText() throws {
        let value = try JSONParser.parse(#"[1.4E-4, 9223372036E9, -0, 12345678901234567890]"#)
        #expect(value.compactText == "[1.4E-4,9223372036E9,-0,12345678901234567890]")
    }

    @Test func objectsKeepMemberOrderAndPositions() throws {
        let value = try JSONParser.parse("{\n  \"b\": 1,\n  \"a\": {\"x\": null}\n}")
        let members = try #require(value.objectMembers)
        #expect(members.map(\.key) == ["b", "a"])
        #expect(members.map(\.line) == [2, 3])
        #expect(members.map(\.column) == [3, 3])
    }

    @Test func escapesAndSurrogatePairsDecode() throws {
        let value = try JSONParser.parse(#"["a\"b\\c\/d\n", "\u00fc\ud83d\ude00"]"#)
        #expect(value.arrayElements?.map(\.value) == [.string("a\"b\\c/d\n"), .string("ü😀")])
        #expect(value.compactText == #"["a\"b\\c/d\n","ü😀"]"#)
    }

    @Test(arguments: [
        ("{\"a\":1,}", "expected a member name"),
        ("[1 2]", "expected `,` or `]`"),
        ("{\"a\" 1}", "expected `:`"),
        ("\"abc", "unterminated string"),
        ("[01]", "leading zeros"),
        ("[tru]", "expected a JSON value"),
        ("{} x", "after the end of the JSON value"),
        ("", "empty"),
        ("[\"\\x\"]", "invalid escape"),
        ("[\"\\ud800\"]", "unpaired surrogate"),
    ])
    func malformedDocumentsSayWhatWasExpected(text: String, fragment: String) {
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            (error as? JSONSyntaxError)?.message.contains(fragment) == true
        }
    }

    /// Strings are scanned eight bytes at a time: a quote, backslash or control character at any
    /// offset must end the fast scan at exactly that byte.
    @Test func specialBytesAreFoundAtEveryOffset() throws {
        for offset in 0..<20 {
            let plain = String(repeating: "a", count: offset)
            guard case .array(let elements) = try JSONParser.parse("[\"\(plain)\",\"x\"]") else {
                Issue.record("not an array")
                continue
            }
            #expect(elements.map(\.value) == [.string(plain), .string("x")])
            #expect(try JSONParser.parse("\"\(plain)\\n\(plain)\"") == .string(plain + "\n" + plain))
            #expect(throws: JSONSyntaxError.self) { try JSONParser.parse("\"\(plain)\u{01}\(plain)\"") }
        }
    }

    @Test func errorsCarryLineAndColumn() {
        do {
            _ = try JSONParser.parse("{\n  \"a\": 1,\n  \"b\": ]\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }

    @Test func deepNestingIsRefusedNotCrashed() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func byteOrderMarkIsTolerated() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF, 0x31]) == .number("1"))
    }
}
