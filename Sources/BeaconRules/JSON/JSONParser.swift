/// Parses whole JSON documents (campaign files, locale files) into `JSONValue`s with positions.
public enum JSONParser {
    /// Documents nested deeper than this are refused rather than risking the stack.
    public static let maximumDepth = 512

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        return try result.get()
    }

    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var scanner = JSONScanner(buffer)
        // A UTF-8 byte order mark is tolerated: some Windows tools write one.
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { scanner.position = 3; scanner.lineStart = 3 }
        scanner.skipWhitespace()
        if scanner.isAtEnd { throw scanner.error("the document is empty; expected a JSON value") }
        let value = try parseValue(&scanner, depth: 0)
        scanner.skipWhitespace()
        guard scanner.isAtEnd else {
            throw scanner.error("unexpected \(scanner.foundDescription()) after the end of the JSON value")
        }
        return value
    }

    static func parseValue(_ s: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maximumDepth else { throw s.error("nesting deeper than \(maximumDepth) levels") }
        switch s.current ?? 0 {
        case 0x22:
            let (range, escaped) = try s.scanString()
            return .string(try s.decodeString(range, escaped: escaped))
        case 0x7B:
            s.position += 1
            s.skipWhitespace()
            var members: [JSONMember] = []
            members.reserveCapacity(8)
            if s.current == 0x7D { s.position += 1; return .object(members) }
            while true {
                s.skipWhitespace()
                guard s.current == 0x22 else {
                    throw s.error("expected a member name in quotes, found \(s.foundDescription())")
                }
                let line = s.line, column = s.column
                let (range, escaped) = try s.scanString()
                let key = try s.decodeString(range, escaped: escaped)
                s.skipWhitespace()
                try s.expect(0x3A, "`:` after member name \"\(key)\"")
                s.skipWhitespace()
                let value = try parseValue(&s, depth: depth + 1)
                members.append(JSONMember(key: key, value: value, line: line, column: column))
                s.skipWhitespace()
                if s.current == 0x2C { s.position += 1; continue }
                try s.expect(0x7D, "`,` or `}` after the value of \"\(key)\"")
                return .object(members)
            }
        case 0x5B:
            s.position += 1
            s.skipWhitespace()
            var elements: [JSONElement] = []
            if s.current == 0x5D { s.position += 1; return .array(elements) }
            while true {
                s.skipWhitespace()
                let line = s.line, column = s.column
                let value = try parseValue(&s, depth: depth + 1)
                elements.append(JSONElement(value: value, line: line, column: column))
                s.skipWhitespace()
                if s.current == 0x2C { s.position += 1; continue }
                try s.expect(0x5D, "`,` or `]` in array")
                return .array(elements)
            }
        case 0x2D, 0x30...0x39:
            let range = try s.scanNumber()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[range]), as: UTF8.self))
        case 0:
            throw s.error("expected a JSON value, found \(s.foundDescription())")
        default:
            return try s.scanLiteral()
        }
    }
}
