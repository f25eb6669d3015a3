/// Parses whole JSON documents (campaign files, locale files) into `JSONValue`s with positions.
public enum JSONParser {
    /// Documents nested deeper than this are refused rather than risking the stack.
    public static let maximumDepth = 512

    /// Parses a whole JSON document; the error gives line and column.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses a whole JSON document from its UTF-8 bytes.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses a whole JSON document from UTF-8 bytes in place (a mapped file), without copying
    /// them.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var scanner = JSONScanner(buffer)
        // A UTF-8 byte order mark is tolerated: some Windows tools write one.
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { scanner.position = 3; scanner.lineStart = 3 }
        scanner.skipWhitespace()
        if scanner.isAtEnd { throw scanner.error("the document is empty; expected a JSON value") }
        var builder = JSONTreeBuilder()
        let value = try builder.value(&scanner, depth: 0)
        scanner.skipWhitespace()
        guard scanner.isAtEnd else {
            throw scanner.error("unexpected \(scanner.foundDescription()) after the end of the JSON value")
        }
        return value
    }
}
